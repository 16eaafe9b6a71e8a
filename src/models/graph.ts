import { VwhError } from '../core/errors.js';
import type { Model, ModelGraph } from './types.js';

export function buildGraph(models: Map<string, Model>): ModelGraph {
  const parents = new Map<string, string[]>();
  const children = new Map<string, string[]>();
  for (const id of models.keys()) children.set(id, []);
  for (const model of models.values()) {
    parents.set(model.id, [...model.parents]);
    for (const parent of model.parents) children.get(parent)?.push(model.id);
  }
  return { order: topoSort(models), parents, children };
}

/** Depth-first order; a cycle is reported with every model on it and its file. */
function topoSort(models: Map<string, Model>): string[] {
  const state = new Map<string, 'visiting' | 'done'>();
  const order: string[] = [];
  const stack: string[] = [];
  const visit = (id: string) => {
    const s = state.get(id);
    if (s === 'done') return;
    if (s === 'visiting') {
      const cycle = [...stack.slice(stack.indexOf(id)), id];
      const files = cycle.map((m) => `${m} (${models.get(m)?.path})`).join(' -> ');
      throw new VwhError('MODEL_GRAPH', `The models form a cycle: ${files}. Remove one of these references.`, {
        details: { cycle },
      });
    }
    state.set(id, 'visiting');
    stack.push(id);
    for (const parent of [...(models.get(id)?.parents ?? [])].sort()) visit(parent);
    stack.pop();
    state.set(id, 'done');
    order.push(id);
  };
  for (const id of [...models.keys()].sort()) visit(id);
  return order;
}

/** Every ancestor (or descendant) of `id`, not including itself. */
export function reachable(map: Map<string, string[]>, id: string): Set<string> {
  const seen = new Set<string>();
  const todo = [...(map.get(id) ?? [])];
  while (todo.length) {
    const next = todo.pop() as string;
    if (seen.has(next)) continue;
    seen.add(next);
    todo.push(...(map.get(next) ?? []));
  }
  return seen;
}
