/** The invented businesses of the demo team: brand, website, market, topics and what their customers ask. */
import type { MarketBrand } from './catalog.js';

export interface Industry {
  brand: string;
  website: string;
  language: string;
  location: string;
  /** Competitors; the demo tracks some of them, the rest stay in the market (untracked). */
  rivals: readonly MarketBrand[];
  topics: ReadonlyArray<{ name: string; subjects: readonly string[] }>;
  audiences: readonly string[];
}

const PATTERNS = [
  'best {s} for {a}',
  'which {s} should I buy as {a}',
  'top rated {s} in 2025',
  'affordable {s} for {a}',
  'how to choose {s} for {a}',
  '{s} recommendations for {a}',
  'most reliable {s}',
  'where to get {s} near me',
  'compare {s} brands',
  'is it worth paying more for premium {s}',
] as const;

export const INDUSTRIES: readonly Industry[] = Object.freeze([
  {
    brand: 'Northwind Cycles',
    website: 'https://www.northwindcycles.com',
    language: 'en',
    location: 'US',
    rivals: [
      { name: 'Velo Republic', domain: 'velorepublic.com' },
      { name: 'Spokehaus', domain: 'spokehaus.com' },
      { name: 'Ridgeline Bikes', domain: 'ridgelinebikes.com' },
      { name: 'UrbanPedal', domain: 'urbanpedal.co' },
      { name: 'Gearshift Depot', domain: 'gearshiftdepot.com' },
      { name: 'Tandem Works', domain: 'tandemworks.com' },
      { name: 'Crankset Cycles', domain: 'cranksetcycles.com' },
      { name: 'Freewheel Outfitters', domain: 'freewheeloutfitters.com' },
      { name: 'Chainline Supply', domain: 'chainlinesupply.com' },
    ],
    topics: [
      { name: 'Road bikes', subjects: ['road bike', 'carbon road bike', 'endurance bike', 'racing bike'] },
      { name: 'E-bikes', subjects: ['e-bike', 'electric commuter bike', 'cargo e-bike', 'folding e-bike'] },
      { name: 'Bike repair', subjects: ['bike repair shop', 'bike tune-up service', 'wheel truing service'] },
      { name: 'Cycling gear', subjects: ['cycling helmet', 'bike lights', 'cycling shoes', 'bike lock'] },
    ],
    audiences: ['beginners', 'commuters', 'long-distance riders', 'families', 'students', 'seniors'],
  },
  {
    brand: 'Pipewell CRM',
    website: 'https://pipewell.io',
    language: 'en',
    location: 'GB',
    rivals: [
      { name: 'Dealflow', domain: 'dealflow.com' },
      { name: 'Clientory', domain: 'clientory.com' },
      { name: 'Leadnest', domain: 'leadnest.io' },
      { name: 'Hubwise CRM', domain: 'hubwisecrm.com' },
      { name: 'Salesrail', domain: 'salesrail.com' },
      { name: 'Accountly', domain: 'accountly.io' },
      { name: 'Pipedash', domain: 'pipedash.app' },
      { name: 'Contactive Cloud', domain: 'contactivecloud.com' },
      { name: 'Funnelcraft', domain: 'funnelcraft.io' },
    ],
    topics: [
      { name: 'CRM software', subjects: ['CRM', 'sales CRM', 'cloud CRM', 'CRM software'] },
      { name: 'Sales pipeline', subjects: ['pipeline management tool', 'deal tracking software'] },
      { name: 'Integrations', subjects: ['CRM with email integration', 'CRM with accounting integration'] },
      { name: 'Customer support', subjects: ['helpdesk CRM', 'customer support software'] },
    ],
    audiences: ['small teams', 'startups', 'agencies', 'B2B sales teams', 'freelancers', 'nonprofits'],
  },
  {
    brand: 'Copper Kettle Coffee',
    website: 'https://copperkettle.coffee',
    language: 'en',
    location: 'US',
    rivals: [
      { name: 'Bean & Bloom', domain: 'beanandbloom.com' },
      { name: 'Roastery North', domain: 'roasterynorth.com' },
      { name: 'Daybreak Roasters', domain: 'daybreakroasters.com' },
      { name: 'Third Crack', domain: 'thirdcrack.coffee' },
      { name: 'Kilnworks Coffee', domain: 'kilnworks.coffee' },
      { name: 'Morning Ritual Co', domain: 'morningritual.co' },
      { name: 'Ember Bean', domain: 'emberbean.com' },
      { name: 'Highgrove Roasting', domain: 'highgroveroasting.com' },
    ],
    topics: [
      { name: 'Coffee beans', subjects: ['specialty coffee beans', 'espresso beans', 'single origin coffee'] },
      { name: 'Subscriptions', subjects: ['coffee subscription', 'monthly coffee box', 'coffee gift box'] },
      { name: 'Brewing', subjects: ['pour over coffee', 'cold brew coffee', 'decaf coffee'] },
    ],
    audiences: ['espresso lovers', 'offices', 'beginners', 'gift buyers', 'cafes'],
  },
  {
    brand: 'Lumen Dental Studio',
    website: 'https://lumendental.studio',
    language: 'de',
    location: 'DE',
    rivals: [
      { name: 'Smilecraft Clinic', domain: 'smilecraft.de' },
      { name: 'Brightbite Dental', domain: 'brightbite.de' },
      { name: 'Zahnwerk Berlin', domain: 'zahnwerk.berlin' },
      { name: 'Pearl Dental Care', domain: 'pearldental.de' },
      { name: 'Dentalis Praxis', domain: 'dentalis-praxis.de' },
      { name: 'Alignly', domain: 'alignly.com' },
    ],
    topics: [
      { name: 'Teeth whitening', subjects: ['teeth whitening', 'professional whitening'] },
      { name: 'Implants', subjects: ['dental implants', 'implant dentist'] },
      { name: 'Aligners', subjects: ['clear aligners', 'invisible braces'] },
    ],
    audiences: ['adults', 'anxious patients', 'families', 'expats'],
  },
  {
    brand: 'Harbor Home Insurance',
    website: 'https://harborhome.insure',
    language: 'en',
    location: 'CA',
    rivals: [
      { name: 'Keystone Mutual', domain: 'keystonemutual.ca' },
      { name: 'Shelterwise', domain: 'shelterwise.ca' },
      { name: 'Maplegate Insurance', domain: 'maplegate.ca' },
      { name: 'Coverly', domain: 'coverly.com' },
      { name: 'Northstar Assurance', domain: 'northstarassurance.ca' },
      { name: 'Homeguard Direct', domain: 'homeguarddirect.ca' },
    ],
    topics: [
      { name: 'Home insurance', subjects: ['home insurance', 'condo insurance', 'renters insurance'] },
      { name: 'Claims', subjects: ['insurance claims service', 'flood insurance claim'] },
      { name: 'Pricing', subjects: ['cheap home insurance', 'home insurance quote'] },
    ],
    audiences: ['first-time buyers', 'landlords', 'renters', 'retirees'],
  },
]);

/** Distinct prompt texts of an industry, in a fixed order (cycles through topics). */
export function industryPrompts(industry: Industry): Array<{ content: string; topic: number }> {
  const out: Array<{ content: string; topic: number }> = [];
  const seen = new Set<string>();
  const maxSubjects = Math.max(...industry.topics.map((t) => t.subjects.length));
  for (let p = 0; p < PATTERNS.length; p++) {
    for (let a = 0; a < industry.audiences.length; a++) {
      for (let s = 0; s < maxSubjects; s++) {
        industry.topics.forEach((topic, t) => {
          const subject = topic.subjects[s % topic.subjects.length] ?? topic.name;
          const pattern = PATTERNS[(p + s + t) % PATTERNS.length] ?? PATTERNS[0];
          const content = pattern.replace('{s}', subject).replace('{a}', industry.audiences[a] ?? 'everyone');
          if (!seen.has(content)) {
            seen.add(content);
            out.push({ content, topic: t });
          }
        });
      }
    }
  }
  return out;
}

/** The demo industry a brand belongs to, if any (its untracked rivals then populate the market). */
export function industryOfBrand(brandName: string | null): Industry | undefined {
  if (!brandName) return undefined;
  const key = brandName.trim().toLowerCase();
  return INDUSTRIES.find((i) => i.brand.toLowerCase() === key);
}
