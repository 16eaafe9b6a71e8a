/**
 * The article writer: a deterministic Markdown article (same inputs and seed, same text) that honours the brief:
 * the prompt gives the title and the opening, every keyword appears and heads a section, every reference link is
 * cited in the text and listed under Sources with the uploaded files, and the word count (`countWords`) lands
 * between `min_words` and `max_words` (default 600-1,200).
 */
import { createHash } from 'node:crypto';
import { prng } from '../../state/ids.js';
import { capitalize, countWords, hostOf, slugify } from './words.js';

export interface Brief {
  user_prompt: string;
  keywords: string[];
  reference_links: string[];
  uploaded_files: Array<{ file_name: string; file_type: string; url?: string | undefined }>;
  min_words: number | null;
  max_words: number | null;
  /** A title given by the caller (the workflow's action title); otherwise derived from the prompt. */
  title?: string;
}

export interface WrittenArticle {
  title: string;
  content: string;
  slug: string;
  seo_title: string;
  seo_description: string;
  keywords: string[];
  featured_images: Array<{ url: string; alt: string | null }>;
  data_sources: Array<{ title: string | null; url: string }>;
}

export const DEFAULT_MIN_WORDS = 600;
export const DEFAULT_MAX_WORDS = 1200;

const GENERIC_HEADINGS = ['Why it matters', 'How it works', 'Getting started', 'Common mistakes', 'Key takeaways'];

const SENTENCES = [
  'Teams that treat {topic} as a habit rather than a project see steadier results over a quarter.',
  'Start with the questions your customers already ask, then answer them in plain words.',
  'A short checklist keeps the work honest: what changed, who noticed, and what it cost.',
  'Measure one thing at a time so that a change in the numbers has a single explanation.',
  'The strongest pages on {topic} explain the trade-offs instead of hiding them.',
  'Examples from real situations make an abstract point concrete and easy to remember.',
  'Revisit the plan after a few weeks, because the first version is rarely the best one.',
  'Readers trust sources they can check, so cite the data behind every claim.',
  'When budgets are tight, the cheapest improvement is usually clearer writing.',
  'Compare your approach with two alternatives before you commit to it.',
  'Small, regular updates beat a large rewrite that never ships.',
  'Write for the person who will act on the advice, not for a search engine.',
];

/** Bounds of a brief, defaults applied: `[min, max]`. */
export function wordBounds(brief: Pick<Brief, 'min_words' | 'max_words'>): [number, number] {
  const lo = brief.min_words ?? Math.min(DEFAULT_MIN_WORDS, brief.max_words ?? DEFAULT_MIN_WORDS);
  const hi = brief.max_words ?? Math.max(lo, DEFAULT_MAX_WORDS);
  return [lo, hi];
}

export function titleOf(brief: Brief): string {
  if (brief.title?.trim()) return brief.title.trim();
  const cleaned = brief.user_prompt
    .replace(/\s+/g, ' ')
    .trim()
    .replace(
      /^(please\s+)?(write|create|draft|generate)\s+(me\s+)?(an?\s+)?(\w+\s+)?(article|post|guide|blog post)?\s*(about|on)\s+/i,
      '',
    )
    .replace(/[.!?]+$/, '');
  const words = cleaned.split(' ').slice(0, 10).join(' ');
  return capitalize(words || 'Untitled article');
}

/** The outline: the title and the section headings the draft will follow. */
export function outlineOf(brief: Brief, variant = 0): { title: string; headings: string[] } {
  const [lo, hi] = wordBounds(brief);
  const target = Math.round((lo + hi) / 2);
  const count = Math.max(1, Math.min(6, Math.floor(target / 150)));
  const pool = [...brief.keywords.map(capitalize), ...GENERIC_HEADINGS];
  const headings: string[] = [];
  for (let i = 0; i < count; i++) headings.push(pool[(i + variant) % pool.length] as string);
  return { title: titleOf(brief), headings: [...new Set(headings)] };
}

export function outlineMarkdown(brief: Brief, variant = 0): string {
  const { title, headings } = outlineOf(brief, variant);
  return [`# ${title}`, '', ...headings.map((h, i) => `${i + 1}. ${h}`)].join('\n');
}

interface Layout {
  title: string;
  headings: string[];
  topic: string;
  intro: string[];
  /** The required sentences of each section, in heading order. */
  sections: string[][];
  sources: Array<{ title: string | null; url: string }>;
  sourceLines: string[];
  /** Words of the title, the headings and the Sources list. */
  fixed: number;
  /** Words of the opening and of each section's required sentences. */
  required: number[];
}

/** Everything the article must contain whatever its length. */
function layoutOf(raw: Brief, variant: number): Layout {
  const brief = { ...raw, keywords: raw.keywords.map(oneLine).filter((k) => k !== '') };
  const { title, headings } = outlineOf(brief, variant);
  const topic = (brief.keywords[0] ?? title).toLowerCase();
  const sources = [
    ...brief.reference_links.map((url) => ({ title: hostOf(url), url })),
    ...brief.uploaded_files.map((f) => ({
      title: f.file_name,
      url: f.url ?? `file:${encodeURIComponent(f.file_name)}`,
    })),
  ];
  const sourceLines =
    sources.length > 0 ? ['## Sources', '', ...sources.map((s) => `- [${oneLine(s.title)}](${s.url})`)] : [];
  const fixed = countWords([`# ${title}`, ...headings.map((h) => `## ${h}`), ...sourceLines].join('\n'));

  const excerpt = oneLine(brief.user_prompt).split(' ').slice(0, 25).join(' ');
  const intro = [`This article answers the brief: ${excerpt}.`];
  if (brief.keywords.length > 0) intro.push(`It covers ${brief.keywords.join(', ')}.`);
  const sections = headings.map((heading, i) => {
    const required = [`${heading} deserves attention.`];
    const link = brief.reference_links[i];
    if (link) required.push(`See [${hostOf(link)}](${link}) for background.`);
    return required;
  });
  // Links beyond the number of sections are cited in the last section.
  const last = sections[sections.length - 1];
  for (const link of brief.reference_links.slice(sections.length)) {
    last?.push(`See also [${hostOf(link)}](${link}).`);
  }
  const required = [intro, ...sections].map((r) => countWords(r.join(' ')));
  return { title, headings, topic, intro, sections, sources, sourceLines, fixed, required };
}

/**
 * The fewest words an article of this brief can have: title, headings, the opening with every keyword, every link
 * cited, the Sources list. A brief whose minimum exceeds its `max_words` cannot be honoured (create answers 400).
 */
export function minimumWords(brief: Brief, variant = 0): number {
  const layout = layoutOf(brief, variant);
  return layout.fixed + layout.required.reduce((a, b) => a + b, 0);
}

export function writeArticle(brief: Brief, seed: number, variant = 0): WrittenArticle {
  const [lo, hi] = wordBounds(brief);
  const target = Math.round((lo + hi) / 2);
  const { title, headings, topic, intro, sections, sources, sourceLines, fixed, required } = layoutOf(brief, variant);
  const random = prng(seedOf(brief, seed, variant));
  const parts = headings.length + 1;
  const free = Math.max(0, target - fixed - required.reduce((a, b) => a + b, 0));
  const sentences = [intro, ...sections];

  const blocks: string[] = [];
  for (let i = 0; i < parts; i++) {
    const share = Math.floor(free / parts) + (i < free % parts ? 1 : 0);
    const body = paragraph(sentences[i] ?? [], share, random, topic);
    if (i === 0) blocks.push(`# ${title}`, '', body, '');
    else blocks.push(`## ${headings[i - 1]}`, '', body, '');
  }
  blocks.push(...sourceLines);
  const content = `${blocks.join('\n').trimEnd()}\n`;
  const slug = slugify(title);
  const opening = intro.join(' ');
  return {
    title,
    content,
    slug,
    seo_title: title.length > 60 ? `${title.slice(0, 57).trimEnd()}...` : title,
    seo_description: opening.length > 155 ? `${opening.slice(0, 152).trimEnd()}...` : opening,
    keywords: [...brief.keywords],
    featured_images: [{ url: `https://images.example.com/${slug}.jpg`, alt: title }],
    data_sources: sources,
  };
}

/** Collapses whitespace (newlines, tabs, runs of spaces) so a value stays on one Markdown line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The required sentences, then `extra` more words from the sentence bank, the last sentence cut to fit. */
function paragraph(required: string[], extra: number, random: () => number, topic: string): string {
  const words: string[] = [];
  let added = 0;
  while (added < extra) {
    const sentence = (SENTENCES[Math.floor(random() * SENTENCES.length)] as string).replace('{topic}', topic);
    for (const word of sentence.split(' ')) {
      if (added >= extra) break;
      words.push(word);
      if (/[\p{L}\p{N}]/u.test(word)) added += 1;
    }
  }
  let tail = words.join(' ');
  if (tail !== '' && !/[.!?]$/.test(tail)) tail = `${tail.replace(/[,;:]$/, '')}.`;
  return [...required, tail].filter((s) => s !== '').join(' ');
}

function seedOf(brief: Brief, seed: number, variant: number): number {
  const hex = createHash('sha256')
    .update(`${seed}|${variant}|${JSON.stringify(brief)}`)
    .digest('hex');
  return Number.parseInt(hex.slice(0, 8), 16);
}
