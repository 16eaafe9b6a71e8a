import type { Project } from '../types.js';

export interface ManifestNode {
  unique_id: string;
  resource_type: 'model' | 'test';
  schema?: string;
  name: string;
  path: string;
  kind?: string;
  description?: string;
  grain?: string;
  tags?: string[];
  columns?: Record<string, string>;
  depends_on: { nodes: string[]; sources: string[] };
  config?: Record<string, unknown>;
  fingerprint?: string;
  audits?: { name: string; type: string; severity: string }[];
}

export interface Manifest {
  metadata: { generated_at: string; models_dir: string; generator: string };
  nodes: Record<string, ManifestNode>;
  sources: string[];
  parent_map: Record<string, string[]>;
  child_map: Record<string, string[]>;
}

/** dbt's manifest shape, reduced to what we have: nodes, sources, parent and child maps. */
export function buildManifest(project: Project, generatedAt: Date): Manifest {
  const nodes: Record<string, ManifestNode> = {};
  const parentMap: Record<string, string[]> = {};
  const childMap: Record<string, string[]> = {};
  const sources = new Set<string>();
  for (const id of project.graph.order) {
    const m = project.models.get(id);
    if (!m) continue;
    const { description, grain, tags, columns, audits, ...config } = m.config;
    nodes[id] = {
      unique_id: id,
      resource_type: 'model',
      schema: m.schema,
      name: m.name,
      path: m.path,
      kind: m.config.kind,
      // Conditional spreads: the manifest is JSON output; an absent key means no description.
      ...(description ? { description } : {}),
      ...(grain ? { grain } : {}),
      tags,
      columns,
      depends_on: { nodes: m.parents, sources: m.sources },
      config,
      fingerprint: m.fingerprint,
      audits: audits.map((a) => ({ name: a.name, type: a.type, severity: a.severity })),
    };
    parentMap[id] = [...m.parents];
    childMap[id] = [...(project.graph.children.get(id) ?? [])];
    for (const s of m.sources) sources.add(s);
  }
  for (const t of project.tests) {
    nodes[t.id] = {
      unique_id: t.id,
      resource_type: 'test',
      name: t.id.replace(/^test\./, ''),
      path: t.path,
      depends_on: { nodes: t.parents, sources: [] },
    };
    parentMap[t.id] = [...t.parents];
    for (const p of t.parents) childMap[p]?.push(t.id);
  }
  return {
    metadata: { generated_at: generatedAt.toISOString(), models_dir: project.dir, generator: 'vwh models' },
    nodes,
    sources: [...sources].sort(),
    parent_map: parentMap,
    child_map: childMap,
  };
}
