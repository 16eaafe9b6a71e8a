/**
 * The shape of the docs a user reads: a reference page in docs/ stays short enough to read (≤ 400 lines, no table
 * cell over 300 characters); the history of how a figure was reached lives in docs/lab/, which has no limit. Every
 * relative link of README.md and docs/ (and every docs/ page a source comment cites) leads to a file that exists,
 * and every #anchor into a page to one of its headings. The docs stand alone: nothing names ../shared, which a
 * user of the repository does not have. README's test command installs what the tests need from the system.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const MAX_LINES = 400;
const MAX_CELL = 300;

function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** The reference pages: docs/*.md, not the notebook under docs/lab/. */
const referencePages = readdirSync(join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => join('docs', name));
const allPages = ['README.md', 'dbt-like-models/README.md', ...markdownUnder('docs')];

function read(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** The text outside fenced code blocks, each line with its number. */
function proseLines(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return;
    }
    if (!fenced) out.push({ line: i + 1, text: line });
  });
  return out;
}

/** A table row's cells: split on the pipes GitHub splits on (an escaped `\|` does not split, even in code). */
function cells(row: string): string[] {
  const inner = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2 … */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { text: line } of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const plain = (heading[1] ?? '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const slug = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  for (const match of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(match[1] ?? '');
  return anchors;
}

/** Relative links of a page's prose: [text](target) and [label]: target, with their line. */
function relativeLinks(text: string): Array<{ line: number; target: string }> {
  const links: Array<{ line: number; target: string }> = [];
  for (const { line, text: prose } of proseLines(text)) {
    const withoutCode = prose.replace(/`[^`]*`/g, '');
    const targets = [
      ...[...withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] ?? ''),
      ...[...withoutCode.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/g)].map((m) => m[1] ?? ''),
    ];
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      links.push({ line, target });
    }
  }
  return links;
}

/** Where a link leads: undefined when it does, else what is wrong. */
function brokenLink(from: string, target: string): string | undefined {
  const [pathPart = '', anchor] = target.split('#');
  const file = pathPart === '' ? from : relative(ROOT, resolve(ROOT, dirname(from), decodeURIComponent(pathPart)));
  if (!existsSync(join(ROOT, file))) return `${file} does not exist`;
  if (anchor === undefined || anchor === '' || !file.endsWith('.md') || statSync(join(ROOT, file)).isDirectory()) {
    return undefined;
  }
  return anchorsOf(read(file)).has(anchor.toLowerCase()) ? undefined : `${file} has no heading #${anchor}`;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|sql)$/.test(entry.name) ? [path] : [];
  });
}

describe('the docs a user reads', () => {
  it(`every reference page in docs/ is at most ${MAX_LINES} lines (the history goes to docs/lab/)`, () => {
    const long = referencePages
      .map((page) => ({ page, lines: read(page).trimEnd().split('\n').length }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ page, lines }) => `${page}: ${lines} lines`);
    expect(long).toEqual([]);
  });

  it(`no table cell of a reference page is over ${MAX_CELL} characters`, () => {
    const wide: string[] = [];
    for (const page of referencePages) {
      for (const { line, text } of proseLines(read(page))) {
        if (!text.trimStart().startsWith('|')) continue;
        for (const cell of cells(text)) {
          if (cell.length > MAX_CELL) wide.push(`${page}:${line}: ${cell.length} characters: ${cell.slice(0, 60)}…`);
        }
      }
    }
    expect(wide).toEqual([]);
  });

  it('every relative link of README.md and docs/**/*.md leads to a file that exists (and an anchor to a heading)', () => {
    const broken: string[] = [];
    for (const page of allPages) {
      for (const { line, target } of relativeLinks(read(page))) {
        const why = brokenLink(page, target);
        if (why !== undefined) broken.push(`${page}:${line}: ${target}: ${why}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every docs/ page a source comment cites exists, and its #anchor is one of its headings', () => {
    const broken: string[] = [];
    for (const file of [...sourceFiles('src'), ...sourceFiles('bench'), ...sourceFiles('dbt-like-models')]) {
      for (const match of read(file).matchAll(/\bdocs\/[\w./-]+?\.md(#[\w-]+)?/g)) {
        const why = brokenLink('README.md', match[0]);
        if (why !== undefined) broken.push(`${file}: ${match[0]}: ${why}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every notebook in docs/lab/ is dated in its name and linked from a reference page or a source comment', () => {
    const cited = [...referencePages, ...sourceFiles('src')].map(read).join('\n');
    const notebooks = readdirSync(join(ROOT, 'docs/lab')).filter(
      (name) => name.endsWith('.md') && name !== 'README.md',
    );
    expect(notebooks.filter((name) => !/^\d{4}-\d{2}-[a-z0-9-]+\.md$/.test(name))).toEqual([]);
    expect(notebooks.filter((name) => !cited.includes(`lab/${name}`))).toEqual([]);
  });

  it('the docs stand alone: none names ../shared, which a user of the repository does not have', () => {
    const outside = allPages.filter((page) => /(^|[\s`(])(\.\.\/)?shared\/spec\b/m.test(read(page)));
    expect(outside).toEqual([]);
  });

  it("README's test command installs what the tests need from the system, and CI runs the same script", () => {
    const script = 'test/setup/system-deps.sh';
    expect(existsSync(join(ROOT, script))).toBe(true);
    const testCommand = read('README.md')
      .split('\n')
      .find((line) => /\bnpm test\b/.test(line) && !line.trimStart().startsWith('#'));
    expect(testCommand).toContain(`bash ${script}`);
    expect(read('.ci/run')).toContain(`bash ${script}`);
  });
});
