/**
 * docs/config.md, generated from the one schema of vwh.config.json (SyncConfig's JSON Schema): every field with its
 * type, whether it is required where it appears, and its description (which carries its default). `vwh config
 * reference` prints it; test/core/config-reference.test.ts fails when docs/config.md differs, so they cannot drift.
 */
import { configJsonSchema } from './config.js';

interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  format?: string;
  pattern?: string;
  anyOf?: JsonSchema[];
}

const HEADER = `# vwh.config.json reference

Generated from the config's schema (\`src/core/config.ts\`) by \`vwh config reference\`; \`vwh config schema\` prints
the same schema as JSON Schema for editors (\`"$schema"\` in the file). Every field is optional unless marked
required (required within its section or list item only); a command-line flag wins over the file, the file over the
defaults written in each description. A key never sits in the file: \`apiKeyEnv\` or \`apiKeyFile\` names where it is
(without either, \`VWH_API_KEY\`). \`vwh run\` checks the whole file and reaches every key before it writes anything;
an error names the field, what a valid value looks like, and this page.

| field | type | description |
|---|---|---|
`;

export function configReference(): string {
  const rows: string[] = [];
  walk(configJsonSchema() as JsonSchema, '', rows);
  return `${HEADER}${rows.join('\n')}\n`;
}

function walk(schema: JsonSchema, prefix: string, rows: string[]): void {
  const required = new Set(schema.required ?? []);
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    if (name === '$schema') continue;
    const path = `${prefix}${name}`;
    const need = required.has(name) ? ' (required)' : '';
    rows.push(`| \`${path}\` | ${cell(typeOf(field))}${need} | ${cell(field.description ?? '')} |`);
    if (field.properties) walk(field, `${path}.`, rows);
    if (field.items?.properties) walk(field.items, `${path}[].`, rows);
  }
}

function typeOf(s: JsonSchema): string {
  // a long list would make a cell no one reads (docs/ keeps cells under 300 characters): its count, and where it is
  if (s.enum && s.enum.length > 8) return `one of ${s.enum.length} names (\`vwh config schema\` lists them)`;
  if (s.enum) return `one of ${s.enum.map((v) => `\`${JSON.stringify(v)}\``).join(', ')}`;
  if (s.anyOf) return s.anyOf.map(typeOf).join(' or ');
  if (s.type === 'array') return `list of ${s.items ? typeOf(s.items) : 'values'}`;
  if (s.type === 'integer' || s.type === 'number')
    return `${s.type === 'integer' ? 'whole number' : 'number'}${range(s)}`;
  if (s.type === 'string')
    return `string${s.format === 'uri' ? ' (URL)' : s.format ? ` (${s.format})` : s.pattern ? ` matching \`${s.pattern}\`` : ''}`;
  if (s.type === 'object') return 'object';
  return Array.isArray(s.type) ? s.type.join(' or ') : (s.type ?? 'any');
}

function range(s: JsonSchema): string {
  const low = s.minimum ?? (s.exclusiveMinimum === undefined ? undefined : `> ${s.exclusiveMinimum}`);
  const high = s.maximum !== undefined && s.maximum < Number.MAX_SAFE_INTEGER ? s.maximum : undefined;
  if (low === undefined && high === undefined) return '';
  if (high === undefined) return typeof low === 'string' ? ` ${low}` : ` >= ${low}`;
  if (low === undefined) return ` <= ${high}`;
  return typeof low === 'string' ? ` ${low}, <= ${high}` : ` ${low}–${high}`;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
