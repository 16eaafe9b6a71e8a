import { z } from 'zod';

export const AUDIT_TYPES = [
  'not_null',
  'unique',
  'accepted_values',
  'relationships',
  'number_of_rows',
  'expression',
] as const;
export type AuditType = (typeof AUDIT_TYPES)[number];

/** One audit declared in a model header, normalised. */
export interface AuditSpec {
  name: string;
  type: AuditType;
  columns: string[];
  values?: unknown[];
  to?: string;
  field?: string;
  min?: number;
  max?: number;
  sql?: string;
  severity: 'error' | 'warn';
  /** Failing rows tolerated before the audit counts as failed. */
  threshold: number;
  storeFailures: boolean;
}

const common = {
  name: z.string().optional(),
  severity: z.enum(['error', 'warn']).default('error'),
  threshold: z.number().int().min(0).default(0),
  store_failures: z.boolean().default(false),
};
const columnsList = z.union([z.string(), z.array(z.string()).min(1)]);
const withColumns = z.strictObject({ columns: columnsList, ...common });
const bodies = {
  not_null: z.union([columnsList, withColumns]),
  unique: z.union([columnsList, withColumns]),
  accepted_values: z.strictObject({ column: z.string(), values: z.array(z.unknown()).min(1), ...common }),
  relationships: z.strictObject({ column: z.string(), to: z.string(), field: z.string(), ...common }),
  number_of_rows: z.strictObject({ min: z.number().optional(), max: z.number().optional(), ...common }),
  expression: z.union([z.string(), z.strictObject({ sql: z.string(), ...common })]),
} satisfies Record<AuditType, z.ZodType>;

/** Turns one header entry (`- not_null: [a, b]`, `- expression: {sql: ..., severity: warn}`) into an AuditSpec. */
export function parseAudit(entry: unknown, index: number): AuditSpec {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry) || Object.keys(entry).length !== 1) {
    throw new Error(`audit #${index + 1} must be a map with one key, the audit type (${AUDIT_TYPES.join(', ')})`);
  }
  const [type, body] = Object.entries(entry)[0] as [string, unknown];
  if (!(AUDIT_TYPES as readonly string[]).includes(type)) {
    throw new Error(`audit #${index + 1}: unknown audit type "${type}" (known: ${AUDIT_TYPES.join(', ')})`);
  }
  const parsed = bodies[type as AuditType].safeParse(body ?? {});
  if (!parsed.success) {
    throw new Error(`audit #${index + 1} (${type}): ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  }
  const value = parsed.data as Record<string, unknown> | string | string[];
  const obj: Record<string, unknown> =
    typeof value === 'string' || Array.isArray(value)
      ? type === 'expression'
        ? { sql: value }
        : { columns: value }
      : value;
  const columns = toList(obj.columns ?? obj.column);
  const spec: AuditSpec = {
    type: type as AuditType,
    name: '',
    columns,
    severity: (obj.severity as 'error' | 'warn' | undefined) ?? 'error',
    threshold: (obj.threshold as number | undefined) ?? 0,
    storeFailures: (obj.store_failures as boolean | undefined) ?? false,
  };
  if (obj.values !== undefined) spec.values = obj.values as unknown[];
  if (obj.to !== undefined) spec.to = obj.to as string;
  if (obj.field !== undefined) spec.field = obj.field as string;
  if (obj.min !== undefined) spec.min = obj.min as number;
  if (obj.max !== undefined) spec.max = obj.max as number;
  if (obj.sql !== undefined) spec.sql = obj.sql as string;
  spec.name = (obj.name as string | undefined) ?? defaultName(spec, index);
  return spec;
}

function toList(value: unknown): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value.map(String) : [String(value)];
}

function defaultName(spec: AuditSpec, index: number): string {
  if (spec.type === 'expression' || spec.type === 'number_of_rows') return `${spec.type}_${index + 1}`;
  return [spec.type, ...spec.columns].join('__').replace(/[^A-Za-z0-9_]/g, '_');
}
