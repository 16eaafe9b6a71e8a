/**
 * The models' docs page in real Chromium: a deep lineage graph fits a 1280x800 window (no horizontal scroll), and the
 * search box keeps a model, its upstream and its downstream lit while it dims the other boxes and hides the other
 * dictionary sections.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { docsHtml } from '../../src/models/artifacts/docs-html.js';
import type { Manifest, ManifestNode } from '../../src/models/artifacts/manifest.js';
import { tempDir } from '../fixtures.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A chain of `depth` models per lane (lane_k_0 reads the source, lane_k_i reads lane_k_{i-1}), `lanes` lanes. */
function manifest(lanes: number, depth: number): Manifest {
  const nodes: Record<string, ManifestNode> = {};
  for (let k = 0; k < lanes; k++) {
    for (let i = 0; i < depth; i++) {
      const id = `lane_${k}_step_${i}`;
      nodes[id] = {
        unique_id: id,
        resource_type: 'model',
        name: id,
        path: `${id}.sql`,
        kind: 'full',
        depends_on:
          i === 0 ? { nodes: [], sources: [`raw.source_${k}`] } : { nodes: [`lane_${k}_step_${i - 1}`], sources: [] },
      };
    }
  }
  return {
    metadata: { generated_at: '2026-11-25T00:00:00Z', models_dir: 'models', generator: 'test' },
    nodes,
    sources: Array.from({ length: lanes }, (_, k) => `raw.source_${k}`),
    parent_map: {},
    child_map: {},
  };
}

describe('the models docs page in Chromium', () => {
  const dir = tempDir('vwh-docs-html-').dir;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fits a 1280x800 window and its search keeps a model and its lineage, dimming the rest', async () => {
    const file = join(dir, 'index.html');
    // 10 columns of 230 px: the old fixed-size SVG was 2340 px wide
    writeFileSync(file, docsHtml(manifest(3, 9), {}));
    const browser = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      viewport: { width: 1280, height: 800 },
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    try {
      const page = await browser.newPage();
      await page.goto(`file://${file}`);
      // a string, evaluated in the page: the tests compile without the DOM's types
      const size: { scroll: number; client: number; svg: number } = await page.evaluate(`({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
        svg: document.querySelector('svg').getBoundingClientRect().width,
      })`);
      expect(size.scroll).toBeLessThanOrEqual(size.client);
      expect(size.svg).toBeGreaterThan(1000); // it scales to the window, not to nothing

      await page.fill('#q', 'lane_1_step_4');
      const state: { boxes: Record<string, string>; shown: string[] } = await page.evaluate(`(() => {
        const boxes = {};
        for (const a of document.querySelectorAll('svg a')) {
          boxes[a.getAttribute('data-id')] = getComputedStyle(a).opacity + (a.classList.contains('hit') ? ' hit' : '');
        }
        const shown = [...document.querySelectorAll('section')]
          .filter((s) => getComputedStyle(s).display !== 'none')
          .map((s) => s.id);
        return { boxes, shown };
      })()`);
      expect(state.boxes.lane_1_step_4).toBe('1 hit');
      // upstream (to its source) and downstream stay lit, not marked as hits
      for (const id of ['raw.source_1', 'lane_1_step_0', 'lane_1_step_3', 'lane_1_step_5', 'lane_1_step_8']) {
        expect(state.boxes[id]).toBe('1');
      }
      // the other lanes dim
      for (const id of ['raw.source_0', 'lane_0_step_4', 'lane_2_step_8'])
        expect(Number(state.boxes[id])).toBeLessThan(0.5);
      expect(state.shown).toEqual(['lane_1_step_4']);

      // clearing the search brings everything back
      await page.fill('#q', '');
      const all: number = await page.evaluate(
        `[...document.querySelectorAll('section')].filter((s) => getComputedStyle(s).display !== 'none').length`,
      );
      expect(all).toBe(27);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
