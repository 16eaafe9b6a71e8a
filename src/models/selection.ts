import { VwhError } from '../core/errors.js';
import { reachable } from './graph.js';
import type { ModelStateRow } from './state.js';
import type { Model, Project, SingularTest } from './types.js';

/**
 * dbt's selector syntax: `name`, `schema.name`, `+name` (with ancestors), `name+` (with descendants), `tag:x`,
 * `path:marts/`, `kind:view`, `state:modified` (new or changed fingerprint). `*` is a wildcard in names and paths.
 * Several selectors (space-separated or repeated) are a union; `--exclude` takes the same syntax. A name may also be
 * a singular test's (`test.name` or `name`): see `selectTests`; `+test.name` selects the models above it.
 */
export function selectModels(
  project: Project,
  select: string[],
  exclude: string[],
  states: Map<string, ModelStateRow>,
): Set<string> {
  const tokens = (list: string[]) => list.flatMap((s) => s.split(/[\s,]+/)).filter(Boolean);
  const chosen = new Set<string>();
  const wanted = tokens(select);
  if (wanted.length === 0) for (const id of project.models.keys()) chosen.add(id);
  for (const token of wanted) for (const id of resolveToken(project, token, states, true)) chosen.add(id);
  for (const token of tokens(exclude)) for (const id of resolveToken(project, token, states, false)) chosen.delete(id);
  return chosen;
}

function resolveToken(
  project: Project,
  token: string,
  states: Map<string, ModelStateRow>,
  mustMatch: boolean,
): Set<string> {
  const up = token.startsWith('+');
  const down = token.endsWith('+');
  const body = token.slice(up ? 1 : 0, down ? -1 : undefined);
  const matched = new Set<string>();
  for (const model of project.models.values()) if (matches(model, body, states)) matched.add(model.id);
  const tests = testsNamed(project, body);
  // `state:modified` matching nothing is the normal "nothing changed", not a typo.
  if (matched.size === 0 && tests.length === 0 && mustMatch && !body.startsWith('state:')) {
    throw new VwhError('USAGE', `The selector "${token}" matches no model or test (try: vwh models ls).`);
  }
  const out = new Set(matched);
  if (up) {
    for (const test of tests) {
      for (const p of test.parents) for (const a of [p, ...reachable(project.graph.parents, p)]) out.add(a);
    }
  }
  for (const id of matched) {
    if (up) for (const a of reachable(project.graph.parents, id)) out.add(a);
    if (down) for (const d of reachable(project.graph.children, id)) out.add(d);
  }
  return out;
}

/**
 * The singular tests a selection names (`test.name`, or `name`, wildcards allowed, a `+` before or after it
 * ignored), and those its `--exclude` names. A test named in `--select` runs even when nothing it reads changed.
 */
export function selectTests(
  project: Project,
  select: string[],
  exclude: string[],
): { named: Set<string>; excluded: Set<string> } {
  const named = (list: string[]) =>
    new Set(
      list
        .flatMap((s) => s.split(/[\s,]+/))
        .filter(Boolean)
        .flatMap((token) => testsNamed(project, token.replace(/^\+/, '').replace(/\+$/, '')).map((t) => t.id)),
    );
  return { named: named(select), excluded: named(exclude) };
}

function testsNamed(project: Project, body: string): SingularTest[] {
  if (body.includes(':')) return [];
  const pattern = glob(body);
  return project.tests.filter((t) => pattern.test(t.id) || pattern.test(t.id.replace(/^test\./, '')));
}

function matches(model: Model, body: string, states: Map<string, ModelStateRow>): boolean {
  const colon = body.indexOf(':');
  const method = colon === -1 ? 'name' : body.slice(0, colon);
  const value = colon === -1 ? body : body.slice(colon + 1);
  switch (method) {
    case 'name':
      return glob(value).test(model.id) || glob(value).test(model.name);
    case 'tag':
      return model.config.tags.some((t) => glob(value).test(t));
    case 'kind':
      return model.config.kind === value;
    case 'path': {
      const prefix = value.replace(/^\.?\//, '');
      return model.path.startsWith(prefix) || glob(prefix).test(model.path);
    }
    case 'state':
      if (value !== 'modified' && value !== 'new') {
        throw new VwhError('USAGE', `Unknown state selector "${body}" (use state:modified or state:new).`);
      }
      return value === 'new' ? !states.has(model.id) : states.get(model.id)?.fingerprint !== model.fingerprint;
    default:
      throw new VwhError('USAGE', `Unknown selector method "${method}:" (use tag:, path:, kind:, state:).`);
  }
}

function glob(pattern: string): RegExp {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${re}$`, 'i');
}
