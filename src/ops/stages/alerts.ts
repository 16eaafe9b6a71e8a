/**
 * Stage `alerts`: gathers the night's problems (failed stages, stale streams past error_after, audits at error in
 * the latest build) and sends one alert (see ../alerts.ts). With problems but no channel configured it is skipped.
 */
import { DAY_MS, dayToMs } from '../../core/days.js';
import { type Problem, secretVariables, sendAlert } from '../alerts.js';
import { freshness } from '../freshness.js';
import { withOps } from '../ledger.js';
import { STAGE_EXIT, type Stage, type StageOutcome } from '../stage.js';

export const alertsStage: Stage = {
  name: 'alerts',
  needs: [],
  async run(ctx): Promise<StageOutcome> {
    // Freshness is judged against the API's day when the run knows it (the embedded services simulate their own).
    const now = ctx.today ? dayToMs(ctx.today) + DAY_MS / 2 : ctx.clock.now();
    const problems: Problem[] = [];
    for (const [stage, outcome] of ctx.outcomes) {
      if (outcome.status === 'failed') {
        problems.push({
          type: 'stage_failed',
          stage,
          exit_code: outcome.exitCode ?? STAGE_EXIT[stage],
          error: outcome.error ?? null,
        });
      }
    }
    const alerts = ctx.config.alerts ?? {};
    const result = await withOps(ctx.dbPath, async ({ session, ops }) => {
      for (const row of await freshness(session, now, ctx.config.freshness)) {
        if (row.status === 'error') problems.push({ type: 'stale', ...row });
      }
      const audits = await session
        .all<{ node: string; message: string | null }>(
          `select node, message from ops.model_runs
          where status = 'fail' and run_id = (select run_id from ops.model_runs order by started_at desc limit 1)
          order by node`,
        )
        .catch(() => []);
      for (const a of audits) problems.push({ type: 'audit_error', node: a.node, message: a.message });
      if (problems.length === 0 || (!alerts.url && !alerts.command)) return undefined;
      return sendAlert(
        ops,
        {
          url: alerts.url,
          secret: process.env[alerts.secretEnv ?? 'VWH_ALERT_SECRET'] || undefined,
          command: alerts.command,
          hiddenEnv: secretVariables(ctx.config),
          suppressMs: (alerts.suppressMinutes ?? 360) * 60_000,
          timeoutMs: alerts.timeoutMs ?? 10_000,
        },
        { run_id: ctx.runId, warehouse: ctx.dbPath, at: new Date(now).toISOString(), problems },
        now,
      );
    });
    const counts = { problems: problems.length, types: [...new Set(problems.map((p) => p.type))] };
    if (problems.length === 0) return { status: 'succeeded', counts };
    if (!result)
      return { status: 'skipped', counts, error: 'problems found but no alerts.url or alerts.command configured' };
    const detail = { ...counts, outcome: result.outcome, channels: result.channels, fingerprint: result.fingerprint };
    if (result.outcome === 'failed') {
      return { status: 'failed', counts: detail, exitCode: STAGE_EXIT.alerts, error: result.errors.join('; ') };
    }
    return { status: 'succeeded', counts: detail };
  },
};
