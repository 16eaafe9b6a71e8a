/**
 * The `--faults SPEC` grammar (docs/reference-server.md):
 *
 *   SPEC  := RULE ("," RULE)*
 *   RULE  := KIND "=" PROBABILITY [":" PARAM] ["@" PATH_GLOB]
 *   KIND  := 5xx | 429 | reset | truncate | slow | cut | null | repeat | dupes
 *   PARAM := 5xx: the status (default 503) | 429: Retry-After seconds (default 1) | slow: delay, `300ms` or `2s`
 *   PATH_GLOB: relative to /api/public/v1 (or absolute); `*` one path segment, `**` any number of segments.
 *
 * Example: `5xx=0.05,429=0.02,reset=0.01,truncate=0.01,slow=0.02:300ms@/projects/*\/prompts/*\/chats`.
 */
import { VwhError } from '../../core/errors.js';

/**
 * Transport faults (5xx, 429, reset, truncate, slow) and contract breaches a misbehaving API commits: `cut` (a
 * complete response whose JSON stops half-way), `null` (a 200 whose body is `null`), `repeat` (any page past the
 * first answers the first page), `dupes` (each list of the body holds its first item twice).
 */
export type FaultKind = '5xx' | '429' | 'reset' | 'truncate' | 'slow' | 'cut' | 'null' | 'repeat' | 'dupes';
export const FAULT_KINDS: readonly FaultKind[] = [
  '5xx',
  '429',
  'reset',
  'truncate',
  'slow',
  'cut',
  'null',
  'repeat',
  'dupes',
];

export interface FaultRule {
  kind: FaultKind;
  probability: number;
  /** 5xx: status; 429: Retry-After seconds; slow: milliseconds. */
  param: number;
  path: string | null;
  pattern: RegExp | null;
}

const DEFAULT_PARAM: Record<FaultKind, number> = {
  '5xx': 503,
  '429': 1,
  reset: 0,
  truncate: 0,
  slow: 300,
  cut: 0,
  null: 0,
  repeat: 0,
  dupes: 0,
};

export function parseFaultSpec(spec: string): FaultRule[] {
  const rules: FaultRule[] = [];
  for (const raw of spec.split(',').map((s) => s.trim())) {
    if (raw === '') continue;
    const match = /^([a-z0-9]+)=([0-9.]+)(?::([0-9]+(?:ms|s)?))?(?:@(\S+))?$/.exec(raw);
    const kind = match?.[1] as FaultKind | undefined;
    if (!match || !kind || !FAULT_KINDS.includes(kind)) {
      throw new VwhError(
        'USAGE',
        `Invalid fault rule "${raw}": expected KIND=PROBABILITY[:PARAM][@PATH] with KIND one of ${FAULT_KINDS.join(', ')}.`,
      );
    }
    const probability = Number(match[2]);
    if (!(probability >= 0 && probability <= 1)) {
      throw new VwhError('USAGE', `Invalid fault probability in "${raw}": expected a number from 0 to 1.`);
    }
    const path = match[4] ?? null;
    rules.push({
      kind,
      probability,
      param: parseParam(kind, match[3]),
      path,
      pattern: path ? globToRegExp(path) : null,
    });
  }
  return rules;
}

function parseParam(kind: FaultKind, text: string | undefined): number {
  if (text === undefined) return DEFAULT_PARAM[kind];
  if (text.endsWith('ms')) return Number(text.slice(0, -2));
  if (text.endsWith('s')) return Number(text.slice(0, -1)) * 1000;
  return Number(text);
}

export const BASE_PATH = '/api/public/v1';

function globToRegExp(glob: string): RegExp {
  const rel = glob.startsWith(BASE_PATH) ? glob.slice(BASE_PATH.length) : glob;
  const body = rel
    .split('/')
    .map((seg) => (seg === '**' ? '.*' : seg.split('*').map(escapeRegExp).join('[^/]*')))
    .join('/');
  return new RegExp(`^${body}/?$`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/** The rule that fires for this request, if any (`draw` is the seeded PRNG). */
export function pickFault(rules: readonly FaultRule[], relPath: string, draw: () => number): FaultRule | null {
  for (const rule of rules) {
    if (rule.pattern && !rule.pattern.test(relPath)) continue;
    if (draw() < rule.probability) return rule;
  }
  return null;
}
