/**
 * The prose of an answer. Each provider has a house style (ChatGPT numbered bold list, Perplexity paragraphs with
 * [n] citation markers, Gemini bold-led paragraphs); brand sentences take their tone from the brand's sentiment.
 */
import { hashParts, pick } from './hash.js';
import { titleCase } from './names.js';

const INTROS = [
  'Here are the options that come up most often for {t}.',
  'When it comes to {t}, a few names are mentioned again and again.',
  'The right choice for {t} depends on your priorities, but some clear favourites exist.',
  'Based on recent reviews and user discussions, these are the main options for {t}.',
];
const POSITIVE = [
  '{b} is one of the most recommended choices, praised for quality and reliability.',
  '{b} stands out for its strong reviews and good value for money.',
  'Many users consider {b} the best all-round option.',
  '{b} is a favourite among experts thanks to its consistent results.',
];
const NEUTRAL = [
  '{b} is a solid alternative with a balanced set of features.',
  '{b} is also worth comparing, depending on budget and needs.',
  '{b} offers a standard option that covers the basics.',
];
const NEGATIVE = [
  '{b} is sometimes mentioned, though reviews point to uneven support.',
  '{b} has a following, but several users report problems with pricing.',
  '{b} is an option, yet it trails the leaders on quality.',
];
const NO_BRAND = 'There is no single leader here; compare reviews, pricing and support before deciding.';

export interface BrandLine {
  /** How the brand is spelled in this answer. */
  surface: string;
  sentiment: number;
}

export interface TextPlan {
  provider: number;
  topic: string;
  brands: BrandLine[];
  /** Reference index (1-based) attached after each brand sentence, or 0. */
  markers: number[];
  /** Uniform draws that pick templates. */
  draws: number[];
  /** Repeat the first two brands in a closing sentence. */
  closing: boolean;
}

function sentence(line: BrandLine, u: number): string {
  const list = line.sentiment >= 65 ? POSITIVE : line.sentiment >= 40 ? NEUTRAL : NEGATIVE;
  return pick(list, u).replace('{b}', line.surface);
}

/** The answer as sentences (or list items) and the separator that joins them into the full text. */
export function renderParts(plan: TextPlan): { parts: string[]; separator: string } {
  const u = (i: number) => plan.draws[i % plan.draws.length] ?? 0.5;
  const separator = plan.provider === 1 ? ' ' : '\n\n';
  const parts: string[] = [pick(INTROS, u(0)).replace('{t}', plan.topic.toLowerCase())];
  const mark = (i: number) => ((plan.markers[i] ?? 0) > 0 && plan.provider === 1 ? ` [${plan.markers[i]}]` : '');
  if (plan.brands.length === 0) {
    parts.push(NO_BRAND);
    return { parts, separator };
  }
  plan.brands.forEach((line, i) => {
    const text = sentence(line, u(i + 1));
    if (plan.provider === 0) {
      parts.push(`${i + 1}. ${text.replace(line.surface, `**${line.surface}**`)}`);
    } else if (plan.provider === 2) {
      parts.push(`**${line.surface}**: ${text}`);
    } else {
      parts.push(text.replace(/\.$/, `${mark(i)}.`));
    }
  });
  const [first, second] = plan.brands;
  if (plan.closing && first) {
    parts.push(
      second
        ? `In short, ${first.surface} is the safest pick, while ${second.surface} suits tighter budgets.`
        : `In short, ${first.surface} is a safe pick.`,
    );
  }
  return { parts, separator };
}

export function renderText(plan: TextPlan): string {
  const { parts, separator } = renderParts(plan);
  return parts.join(separator);
}

/** First sentence, at most 150 characters (the spec's chat_preview). */
export function preview(text: string): string {
  const match = /^(.*?[.!?])(\s|$)/s.exec(text);
  const first = (match?.[1] ?? text).replace(/\s+/g, ' ').trim();
  return first.length <= 150 ? first : `${first.slice(0, 149)}…`;
}

const SECTIONS = ['guides', 'reviews', 'blog', 'compare'];

/** URL of the `variant`-th page a domain has about a prompt. */
export function referenceUrl(
  domain: string,
  category: number,
  slug: string,
  topicSlug: string,
  variant: number,
): string {
  if (domain === 'reddit.com')
    return `https://www.reddit.com/r/${topicSlug.replace(/-/g, '')}/comments/${slug}-${variant}`;
  // The video id is a hash of the whole slug: a prefix would give two prompts' videos one URL and two titles.
  if (domain === 'youtube.com')
    return `https://www.youtube.com/watch?v=${hashParts('video', slug, variant).toString(36).padStart(7, '0')}`;
  if (domain === 'wikipedia.org') return `https://en.wikipedia.org/wiki/${titleCase(topicSlug).replace(/ /g, '_')}`;
  if (category === 0)
    return `https://${domain}/${variant % 2 === 0 ? 'blog' : 'products'}/${variant < 2 ? slug : topicSlug}`;
  return `https://${domain}/${SECTIONS[variant % SECTIONS.length]}/${variant < 2 ? slug : topicSlug}`;
}

export function referenceTitle(domain: string, slug: string, topicSlug: string, variant: number): string {
  // One Wikipedia article per topic (see referenceUrl), so one title whatever the variant.
  const words = titleCase(variant < 2 && domain !== 'wikipedia.org' ? slug : topicSlug);
  return `${words} | ${domain}`;
}

export function referenceSnippet(topic: string, variant: number): string {
  return variant % 2 === 0
    ? `An overview of ${topic.toLowerCase()} options, with notes on pricing, quality and support.`
    : `What buyers say about ${topic.toLowerCase()}: strengths, weaknesses and alternatives.`;
}
