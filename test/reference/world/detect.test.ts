import { describe, expect, test } from 'vitest';
import { Detector, type Term } from '../../../src/reference/world/detect.js';
import { prng } from '../../../src/reference/world/hash.js';

const OWN = 0;
const RIVAL = 1;

function found(terms: Term[], text: string) {
  return new Detector(terms).detect(text).map((d) => [d.owner, d.count]);
}

describe('mention detection', () => {
  test('fuzzy tolerates capitalization and spacing, exact does not', () => {
    const fuzzy: Term[] = [{ text: 'Northwind Cycles', match: 'fuzzy', owner: OWN }];
    const exact: Term[] = [{ text: 'Northwind Cycles', match: 'exact', owner: OWN }];
    for (const text of [
      'Try northwind cycles.',
      'Try NorthwindCycles.',
      'Try Northwind-Cycles.',
      'Try NORTHWIND  CYCLES.',
    ]) {
      expect(found(fuzzy, text)).toEqual([[OWN, 1]]);
      expect(found(exact, text)).toEqual([]);
    }
    expect(found(exact, 'Try Northwind Cycles.')).toEqual([[OWN, 1]]);
  });

  test('both require whole words', () => {
    const terms: Term[] = [
      { text: 'Pulse', match: 'fuzzy', owner: OWN },
      { text: 'NC', match: 'exact', owner: RIVAL },
    ];
    expect(found(terms, 'An impulse buy, pulsed. NCAA and SYNC.')).toEqual([]);
    expect(found(terms, 'Pulse (NC) and pulse again: NC.')).toEqual([
      [OWN, 2],
      [RIVAL, 2],
    ]);
  });

  test('an alias adds mentions the brand name alone misses', () => {
    const text = 'Northwind is great. NC ships fast. nc is cheap.';
    const name: Term[] = [{ text: 'Northwind Cycles', match: 'fuzzy', owner: OWN }];
    expect(found(name, text)).toEqual([]);
    expect(found([...name, { text: 'Northwind', match: 'fuzzy', owner: OWN }], text)).toEqual([[OWN, 1]]);
    expect(found([...name, { text: 'NC', match: 'exact', owner: OWN }], text)).toEqual([[OWN, 1]]);
    expect(found([...name, { text: 'NC', match: 'fuzzy', owner: OWN }], text)).toEqual([[OWN, 2]]);
  });

  test('the longest term wins where terms overlap, and order is by first occurrence', () => {
    const terms: Term[] = [
      { text: 'Northwind', match: 'fuzzy', owner: RIVAL },
      { text: 'Northwind Cycles', match: 'fuzzy', owner: OWN },
    ];
    const detections = new Detector(terms).detect('Northwind Cycles beats Northwind Labs.');
    expect(detections.map((d) => [d.owner, d.count])).toEqual([
      [OWN, 1],
      [RIVAL, 1],
    ]);
    expect(detections[0]?.first).toBe(0);
  });

  test('detecting part by part equals detecting the joined text', () => {
    const words = ['Northwind', 'Cycles', 'NC', 'nc', 'Velo', 'Republic', 'the', 'best', 'is', '**', '1.', 'Spokehaus'];
    const terms: Term[] = [
      { text: 'Northwind Cycles', match: 'fuzzy', owner: 0 },
      { text: 'NC', match: 'exact', owner: 0 },
      { text: 'Velo Republic', match: 'fuzzy', owner: 1 },
      { text: 'Spokehaus', match: 'fuzzy', owner: 2 },
    ];
    const detector = new Detector(terms);
    const r = prng(7);
    for (let n = 0; n < 300; n++) {
      const parts = Array.from({ length: 1 + Math.floor(r() * 5) }, () => {
        const length = 1 + Math.floor(r() * 8);
        return `${Array.from({ length }, () => words[Math.floor(r() * words.length)]).join(' ')}.`;
      });
      const separator = r() < 0.5 ? ' ' : '\n\n';
      const whole = new Detector(terms).detect(parts.join(separator));
      expect(detector.detectParts(parts, separator)).toEqual(whole);
    }
  });
});
