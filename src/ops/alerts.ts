/**
 * Alerts: on a failed stage, stale data or an audit at error, a JSON summary is POSTed to `alerts.url` (signed:
 * `X-VWH-Signature` is the hex HMAC-SHA256 of the exact body with the secret of `alerts.secretEnv`) and/or piped to
 * `alerts.command` on stdin. The same set of problems is not sent again within `suppressMinutes`. The body passes
 * through `redact`, so an API key that reached an error message never leaves in an alert.
 */
import { spawn } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import { request } from 'undici';
import { holdsSecret, redact } from '../core/errors.js';
import type { OpsDatabase } from '../warehouse/kysely/ops-database.js';

export const ALERT_SIGNATURE_HEADER = 'X-VWH-Signature';

export type Problem =
  | { type: 'stage_failed'; stage: string; exit_code: number | null; error: string | null }
  | { type: 'stale'; team_id: string; stream: string; project_id: string; newest_day: string; age_hours: number }
  | { type: 'audit_error'; node: string; message: string | null };

export interface AlertSummary {
  source: 'visibility-warehouse';
  run_id: string;
  host: string;
  warehouse: string;
  at: string;
  fingerprint: string;
  problems: Problem[];
}

export interface AlertSettings {
  url?: string | undefined;
  secret?: string | undefined;
  command?: string | undefined;
  /** Variables the config names as holding a key or a secret (`secretVariables`): kept out of the command's env. */
  hiddenEnv?: readonly string[] | undefined;
  suppressMs: number;
  timeoutMs: number;
}

/** Same problems, same fingerprint: what the suppression interval compares. Ages and messages do not count. */
export function fingerprintOf(problems: readonly Problem[]): string {
  const keys = problems
    .map((p) =>
      p.type === 'stage_failed'
        ? `stage:${p.stage}`
        : p.type === 'stale'
          ? `stale:${p.team_id}:${p.stream}:${p.project_id}`
          : `audit:${p.node}`,
    )
    .sort();
  return createHash('sha256').update(keys.join('\n')).digest('hex').slice(0, 16);
}

export function signAlert(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export interface AlertOutcome {
  outcome: 'sent' | 'suppressed' | 'failed' | 'none';
  channels: string[];
  errors: string[];
  fingerprint?: string;
}

export async function sendAlert(
  ops: Kysely<OpsDatabase>,
  settings: AlertSettings,
  summary: Omit<AlertSummary, 'fingerprint' | 'source' | 'host'>,
  now: number,
): Promise<AlertOutcome> {
  if (summary.problems.length === 0) return { outcome: 'none', channels: [], errors: [] };
  const fingerprint = fingerprintOf(summary.problems);
  const full: AlertSummary = { source: 'visibility-warehouse', host: hostname(), fingerprint, ...summary };
  const body = redact(JSON.stringify(full));
  const channels = [...(settings.url ? ['url'] : []), ...(settings.command ? ['command'] : [])];
  const record = async (outcome: 'sent' | 'suppressed' | 'failed', errors: string[]) => {
    await ops
      .insertInto('ops.alerts_sent')
      .values({
        fingerprint,
        run_id: summary.run_id,
        sent_at: new Date(now),
        outcome,
        channels: JSON.stringify(channels),
        summary: errors.length ? redact(JSON.stringify({ ...full, delivery_errors: errors })) : body,
      })
      .execute();
    return { outcome, channels, errors, fingerprint };
  };
  const recent = await ops
    .selectFrom('ops.alerts_sent')
    .select('sent_at')
    .where('fingerprint', '=', fingerprint)
    .where('outcome', '=', 'sent')
    .where('sent_at', '>', new Date(now - settings.suppressMs))
    .executeTakeFirst();
  if (recent) return record('suppressed', []);
  const errors: string[] = [];
  if (settings.url) {
    try {
      await post(settings.url, body, settings.secret, settings.timeoutMs);
    } catch (error) {
      errors.push(`POST ${settings.url}: ${(error as Error).message}`);
    }
  }
  if (settings.command) {
    try {
      await runCommand(settings.command, body, fingerprint, settings.timeoutMs, settings.hiddenEnv ?? []);
    } catch (error) {
      errors.push(`command: ${(error as Error).message}`);
    }
  }
  return record(errors.length ? 'failed' : 'sent', errors);
}

async function post(url: string, body: string, secret: string | undefined, timeoutMs: number): Promise<void> {
  const res = await request(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'visibility-warehouse-alerts',
      // A conditional spread: a header set to undefined would be sent as the text "undefined".
      ...(secret ? { [ALERT_SIGNATURE_HEADER]: signAlert(secret, body) } : {}),
    },
    body,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
  });
  await res.body.dump();
  if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`answered ${res.statusCode}`);
}

function runCommand(
  command: string,
  body: string,
  fingerprint: string,
  timeoutMs: number,
  hidden: readonly string[],
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, {
      shell: true,
      stdio: ['pipe', 'ignore', 'pipe'],
      timeout: timeoutMs,
      // The child gets the fingerprint, not the parent's secrets: the API key and alert secret stay out of its env.
      env: { ...withoutSecrets(process.env, hidden), VWH_ALERT_FINGERPRINT: fingerprint },
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`exited ${code ?? signal}${stderr ? `: ${stderr.trim().slice(0, 200)}` : ''}`));
    });
    child.stdin.on('error', () => {});
    child.stdin.end(body);
  });
}

/**
 * Variables that hold a key or a secret whatever their name: vwh's own, and the PostgreSQL URL of a cluster (its
 * password). `secretVariables` adds those the config names.
 */
const SECRET_VARIABLES = ['VWH_API_KEY', 'VWH_ALERT_SECRET', 'VWH_WEBHOOK_SECRETS', 'VWH_CLUSTER_URL'];

/**
 * Every variable `config` names as holding a key or a secret: the value of each field whose name ends in `Env`
 * (a team's `apiKeyEnv`, `alerts.secretEnv`, and any such field added later), at any depth, and vwh's own.
 */
export function secretVariables(config: unknown): string[] {
  const names = new Set(SECRET_VARIABLES);
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) walk(item);
    else if (value && typeof value === 'object') {
      for (const [field, inner] of Object.entries(value)) {
        if (field.endsWith('Env') && typeof inner === 'string') names.add(inner);
        else walk(inner);
      }
    }
  };
  walk(config);
  return [...names];
}

/**
 * The environment without what may hold a secret: the variables named in `hidden`, any whose name says it holds one
 * (KEY, SECRET, TOKEN, PASSWORD) and any whose value holds a registered secret (an API key under another name).
 */
function withoutSecrets(env: NodeJS.ProcessEnv, hidden: readonly string[]): NodeJS.ProcessEnv {
  const names = new Set(hidden);
  return Object.fromEntries(
    Object.entries(env).filter(
      ([k, v]) =>
        !names.has(k) && !/KEY|SECRET|TOKEN|PASSWORD|CREDENTIAL/i.test(k) && (v === undefined || !holdsSecret(v)),
    ),
  );
}
