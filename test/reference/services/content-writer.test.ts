/**
 * The article writer over many seeded briefs: whenever a brief can fit its word bounds (create refuses the others),
 * the article's word count is within them and every keyword and link appears; the same brief and seed give the
 * same text. Pure functions (the HTTP side is in content-tasks.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { countWords } from '../../../src/reference/services/content/words.js';
import { type Brief, minimumWords, wordBounds, writeArticle } from '../../../src/reference/services/content/writer.js';
import { prng } from '../../../src/reference/state/ids.js';

const WORDS = ['soil', 'river', 'fast', 'quiet', 'Zürich', '2026', 'bike', 'energy', 'tea', 'x', '&', 'long-tail'];

function randomBrief(random: () => number): Brief {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
  const phrase = (max: number) =>
    Array.from({ length: 1 + Math.floor(random() * max) }, () => pick(WORDS)).join(random() < 0.1 ? '\t ' : ' ');
  const bound = () => {
    const r = random();
    if (r < 0.25) return null;
    return 100 + Math.floor(random() * (r < 0.6 ? 120 : 2_000));
  };
  let min = bound();
  let max = bound();
  if (min !== null && max !== null && min > max) [min, max] = [max, min];
  // Half the briefs are heavy (many long keywords, every link, many files): some of them cannot fit tight bounds.
  const heavy = random() < 0.5;
  const count = (most: number) => (heavy ? most : Math.floor(random() * (most + 1)));
  return {
    user_prompt: phrase(60),
    keywords: Array.from({ length: count(10) }, () => phrase(heavy ? 8 : 3)),
    reference_links: Array.from({ length: count(5) }, (_, i) => `https://site${i}.example.org/p/${i}`),
    uploaded_files: Array.from({ length: count(heavy ? 10 : 3) }, (_, i) => ({
      file_name: `${phrase(3)} ${i}.pdf`,
      file_type: 'pdf',
    })),
    min_words: min,
    max_words: max,
  };
}

describe('article writer', () => {
  it('lands between min_words and max_words and cites every keyword and link, for every brief that fits', () => {
    const random = prng(7);
    let fitting = 0;
    let refused = 0;
    for (let i = 0; i < 400; i++) {
      const brief = randomBrief(random);
      const [lo, hi] = wordBounds(brief);
      if (minimumWords(brief) > hi) {
        refused += 1;
        continue;
      }
      fitting += 1;
      const article = writeArticle(brief, 11);
      const n = countWords(article.content);
      expect(n, JSON.stringify(brief)).toBeGreaterThanOrEqual(lo);
      expect(n, JSON.stringify(brief)).toBeLessThanOrEqual(hi);
      for (const k of brief.keywords) expect(article.content).toContain(k.replace(/\s+/g, ' ').trim());
      for (const link of brief.reference_links) expect(article.content).toContain(`](${link})`);
      for (const f of brief.uploaded_files) expect(article.content).toContain(f.file_name.replace(/\s+/g, ' '));
      expect(writeArticle(brief, 11).content).toBe(article.content);
    }
    // Both kinds of brief were drawn: the check above is not vacuous.
    expect(fitting).toBeGreaterThan(200);
    expect(refused).toBeGreaterThan(0);
  });

  it('keeps the article on its own lines whatever whitespace the keywords hold', () => {
    const article = writeArticle(
      {
        user_prompt: 'Write about\nrain',
        keywords: ['rain\nbarrels', 'drip\tirrigation'],
        reference_links: [],
        uploaded_files: [{ file_name: 'my data.csv', file_type: 'csv' }],
        min_words: 100,
        max_words: 200,
      },
      1,
    );
    expect(article.content).toContain('## Rain barrels\n');
    expect(article.content).toContain('drip irrigation');
    expect(article.content).toContain('- [my data.csv](file:my%20data.csv)');
  });

  it('depends on the seed', () => {
    const brief: Brief = {
      user_prompt: 'Seeds',
      keywords: [],
      reference_links: [],
      uploaded_files: [],
      min_words: null,
      max_words: null,
    };
    expect(writeArticle(brief, 1).content).not.toBe(writeArticle(brief, 2).content);
  });
});
