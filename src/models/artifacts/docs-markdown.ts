import type { CatalogEntry } from './catalog.js';
import type { Manifest } from './manifest.js';

/** The data dictionary: one section per model with its kind, grain, inputs, and columns with types. */
export function dataDictionary(manifest: Manifest, catalog: Record<string, CatalogEntry>): string {
  const lines = ['# Data dictionary', '', `Generated ${manifest.metadata.generated_at} by vwh models docs.`, ''];
  const models = Object.values(manifest.nodes).filter((n) => n.resource_type === 'model');
  for (const schema of [...new Set(models.map((m) => m.schema))]) {
    lines.push(`## ${schema}`, '');
    for (const node of models.filter((m) => m.schema === schema)) {
      const entry = catalog[node.unique_id];
      lines.push(`### ${node.unique_id}`, '');
      if (node.description) lines.push(node.description, '');
      lines.push(`- kind: \`${node.kind}\``);
      if (node.grain) lines.push(`- grain: ${node.grain}`);
      if (node.tags?.length) lines.push(`- tags: ${node.tags.join(', ')}`);
      const inputs = [...node.depends_on.nodes, ...node.depends_on.sources];
      if (inputs.length) lines.push(`- reads: ${inputs.map((i) => `\`${i}\``).join(', ')}`);
      if (entry?.rows !== null && entry?.rows !== undefined) lines.push(`- rows: ${entry.rows}`);
      if (node.audits?.length)
        lines.push(`- audits: ${node.audits.map((a) => `${a.name} (${a.severity})`).join(', ')}`);
      lines.push(`- file: \`${node.path}\``, '');
      const columns =
        entry?.columns ??
        Object.entries(node.columns ?? {}).map(([name, description]) => ({ name, type: '', description }));
      if (columns.length) {
        lines.push('| column | type | description |', '| --- | --- | --- |');
        for (const c of columns) lines.push(`| ${c.name} | ${c.type} | ${c.description.replace(/\|/g, '\\|')} |`);
        lines.push('');
      }
    }
  }
  return `${lines.join('\n')}\n`;
}
