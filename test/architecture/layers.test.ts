/**
 * The layers of docs/architecture.md, held by the code's own imports: every file of src/ imports only from its own
 * folder or from a floor below it, and so does every file of src/reference/ within the reference server's floors
 * (docs/reference-server.md); no files import each other in a loop. Imports are read with the TypeScript
 * parser, type-only ones (`import type`, `import('…').T`) and `await import()` included.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures.js';

/** Top to bottom; folders on one floor do not import each other. */
const FLOORS: readonly (readonly string[])[] = [
  ['cli'],
  ['ops'],
  ['sync', 'export', 'models'],
  ['client', 'warehouse', 'reference'],
  ['api'],
  ['core'],
];

/**
 * The reference server's floors, top to bottom; `.` is the files of src/reference/ itself. A folder's subfolders are
 * the folder (services/workflows is services).
 */
const REFERENCE_FLOORS: readonly (readonly string[])[] = [
  ['.'], // index.ts (the server) and app.ts (its Hono app)
  ['routes'], // the public API's routes, the services' (routes/services/) and the control plane's
  ['http', 'control'], // request plumbing (route builder, auth, guards, the simulated date); control-plane operations
  ['server'], // ReferenceState, everything the server holds; the project bootstrap pipeline
  ['services'], // the second document's services and the action workflows
  ['views', 'faults'], // the API's views of the records; fault injection
  ['state'], // the stores, ids, clocks, options and the demo team's seeding
  ['world', 'net'], // the simulated world; the HTTP error answer and outbound requests (webhooks)
];

type Graph = Map<string, string[]>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Every file of `src` (relative to `root`, with `/`) and the files of src it imports. */
function importGraph(root: string): Graph {
  const graph: Graph = new Map();
  const posix = (path: string) => relative(root, path).split(sep).join('/');
  for (const file of sourceFiles(join(root, 'src'))) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
    const targets: string[] = [];
    const visit = (node: ts.Node): void => {
      let specifier: string | undefined;
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
        if (ts.isStringLiteral(node.moduleSpecifier)) specifier = node.moduleSpecifier.text;
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [argument] = node.arguments;
        if (argument && ts.isStringLiteralLike(argument)) specifier = argument.text;
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
        if (ts.isStringLiteral(node.argument.literal)) specifier = node.argument.literal.text;
      }
      if (specifier?.startsWith('.')) targets.push(posix(resolve(dirname(file), specifier.replace(/\.js$/, '.ts'))));
      ts.forEachChild(node, visit);
    };
    visit(source);
    graph.set(posix(file), targets);
  }
  return graph;
}

/** The folder of `base` that `file` is in (`.` for a file of `base` itself); undefined outside `base`. */
function folderIn(base: string, file: string): string | undefined {
  if (!file.startsWith(`${base}/`)) return undefined;
  const rest = file.slice(base.length + 1);
  return rest.includes('/') ? (rest.split('/')[0] ?? '') : '.';
}

/** Folders of `base` that are on no floor, and every import inside `base` that runs sideways or up a floor. */
function layerViolations(graph: Graph, floors = FLOORS, base = 'src', name = 'FLOORS'): string[] {
  const floorOf = (folder: string) => floors.findIndex((floor) => floor.includes(folder));
  const found = new Set<string>();
  for (const [file, targets] of graph) {
    const from = folderIn(base, file);
    if (from === undefined) continue;
    if (floorOf(from) < 0) found.add(`${base}/${from}/ is on no floor of the layers: add it to ${name} and the docs`);
    for (const target of targets) {
      const to = folderIn(base, target);
      if (to === undefined || to === from || floorOf(to) < 0) continue;
      if (floorOf(to) <= floorOf(from)) found.add(`${file} imports ${target}: ${from} may not import ${to}`);
    }
  }
  return [...found].sort();
}

/** The files that import each other in a loop: each strongly connected set of more than one file (Tarjan). */
function circles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const circle: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      circle.push(member);
    } while (member !== file);
    if (circle.length > 1) found.push(circle.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return found;
}

describe('layers', () => {
  const graph = importGraph(resolve(import.meta.dirname, '../..'));

  it('reads every file of src/ and its imports', () => {
    expect(graph.size).toBeGreaterThan(200);
    expect(graph.get('src/cli/main.ts')).toContain('src/cli/commands/index.ts');
  });

  it('every import runs down a floor (cli → ops → sync/export/models → client/warehouse/reference → api → core)', () => {
    expect(layerViolations(graph)).toEqual([]);
  });

  it('inside src/reference every import runs down its floors (app → routes → http/control → server → services → views/faults → state → world/net)', () => {
    expect(layerViolations(graph, REFERENCE_FLOORS, 'src/reference', 'REFERENCE_FLOORS')).toEqual([]);
  });

  it('no files import each other in a loop, type-only imports included', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('the checks find an import up a floor, one sideways, a folder on no floor and a loop of type-only imports', () => {
    const root = tempDir('vwh-layers-').dir;
    try {
      const write = (path: string, text: string) => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      };
      write('src/core/a.ts', "import { b } from '../ops/b.js';\nexport const a = b;\n");
      write('src/ops/b.ts', 'export const b = 1;\n');
      write('src/models/graph.ts', "import type { Model } from './types.js';\nexport type G = Model[];\n");
      write('src/models/types.ts', "export type Model = import('./graph.js').G;\n");
      write('src/models/run.ts', "export async function f() { return import('../export/x.js'); }\n");
      write('src/export/x.ts', 'export {};\n');
      write('src/app/y.ts', "export * from '../core/a.js';\n");
      const planted = importGraph(root);
      expect(layerViolations(planted)).toEqual([
        'src/app/ is on no floor of the layers: add it to FLOORS and the docs',
        'src/core/a.ts imports src/ops/b.ts: core may not import ops',
        'src/models/run.ts imports src/export/x.ts: models may not import export',
      ]);
      expect(circles(planted)).toEqual([['src/models/graph.ts', 'src/models/types.ts']]);
      // Inside src/reference: the state importing the server above it, a view importing fault injection beside it,
      // a folder on no floor; the root's files and a services subfolder importing its own folder are fine.
      write('src/reference/state/s.ts', "import type { R } from '../server/r.js';\nexport type S = R;\n");
      write('src/reference/server/r.ts', "import { w } from '../world/w.js';\nexport type R = typeof w;\n");
      write('src/reference/world/w.ts', 'export const w = 1;\n');
      write('src/reference/views/v.ts', "export { f } from '../faults/f.js';\n");
      write('src/reference/faults/f.ts', 'export const f = 1;\n');
      write('src/reference/index.ts', "export * from './app.js';\nexport * from './routes/x.js';\n");
      write('src/reference/app.ts', 'export {};\n');
      write('src/reference/routes/x.ts', "export * from '../services/a/b.js';\n");
      write('src/reference/services/a/b.ts', "export * from '../c.js';\n");
      write('src/reference/services/c.ts', 'export {};\n');
      write('src/reference/stuff/z.ts', 'export {};\n');
      expect(layerViolations(importGraph(root), REFERENCE_FLOORS, 'src/reference', 'REFERENCE_FLOORS')).toEqual([
        'src/reference/state/s.ts imports src/reference/server/r.ts: state may not import server',
        'src/reference/stuff/ is on no floor of the layers: add it to REFERENCE_FLOORS and the docs',
        'src/reference/views/v.ts imports src/reference/faults/f.ts: views may not import faults',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
