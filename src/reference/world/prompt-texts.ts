/**
 * Texts of generated prompts (suggested and URL-recommended placeholders, filled in the background). The world's
 * bootstrap prompts come first; templates over the brand, competitors and topics give more when a batch needs them.
 */
import type { World } from './api.js';
import type { ProjectConfig } from './types.js';

const TEMPLATES = [
  'What are the best alternatives to {brand}?',
  'Is {brand} worth it for {topic}?',
  'How does {brand} compare to {competitor}?',
  '{competitor} vs {brand}: which is better for {topic}?',
  'Which {topic} tools do experts recommend?',
  'What do users say about {brand} for {topic}?',
  'Top rated {topic} providers this year',
  'Cheapest option for {topic} like {competitor}',
];

export function suggestionTexts(world: World, project: ProjectConfig, count: number): string[] {
  const taken = new Set(project.prompts.map((p) => p.content.toLowerCase()));
  const out: string[] = [];
  const push = (text: string) => {
    const key = text.toLowerCase();
    if (text.trim() !== '' && !taken.has(key)) {
      taken.add(key);
      out.push(text);
    }
  };
  const brand = project.brand_name ?? project.name;
  for (const p of world.bootstrap(brand, project.website_url ?? '', project.language, project.location).prompts) {
    if (out.length >= count) return out;
    push(p.content);
  }
  const topics = project.topics.map((t) => t.name);
  const competitors = project.competitors.filter((c) => c.deleted_at === null).map((c) => c.name);
  for (let i = 0; out.length < count && i < count * 20; i++) {
    const template = TEMPLATES[i % TEMPLATES.length] as string;
    const topic = topics[Math.floor(i / TEMPLATES.length) % Math.max(1, topics.length)] ?? 'this category';
    const competitor = competitors[Math.floor(i / TEMPLATES.length) % Math.max(1, competitors.length)] ?? 'its rivals';
    const round = Math.floor(i / (TEMPLATES.length * Math.max(1, topics.length, competitors.length)));
    const text = template.replace('{brand}', brand).replace('{topic}', topic).replace('{competitor}', competitor);
    push(round === 0 ? text : `${text} (${round + 1})`);
  }
  return out;
}

export function urlPromptText(url: string, brand: string, index: number): string {
  const host = (() => {
    try {
      return new URL(url).hostname.replace(/^www\./, '');
    } catch {
      return url;
    }
  })();
  const forms = [
    `What does ${host} recommend about ${brand}?`,
    `Is ${host} a good source on ${brand}?`,
    `Which pages like ${host} mention ${brand}?`,
  ];
  return `${forms[index % forms.length]}${index >= forms.length ? ` (${Math.floor(index / forms.length) + 1})` : ''}`;
}
