/** Planning one team's sync: each selected stream's units from its state, and the plan the progress shows. */
import type { RateBudget } from '../client/rate-budget.js';
import type { WarehouseSession } from '../warehouse/warehouse.js';
import { analysisWindow, planStream, type StreamPlan } from './planner.js';
import type { SyncPlan } from './progress.js';
import { STREAMS } from './streams/index.js';
import type { Discovery, StreamDef, SyncSettings, TeamScope, TeamSyncOptions } from './types.js';

export interface TeamPlan {
  selected: StreamDef[];
  plans: StreamPlan[];
  plan: SyncPlan;
  scope: TeamScope;
  window: ReturnType<typeof analysisWindow>;
}

export async function planTeam(
  ws: WarehouseSession,
  options: TeamSyncOptions,
  settings: SyncSettings,
  discovery: Discovery,
  budget: RateBudget,
): Promise<TeamPlan> {
  const { teamId } = options;
  const window = analysisWindow(settings);
  const scope: TeamScope = options.userId ? { userId: options.userId } : {};
  const selected = STREAMS.filter((s) => !options.streams || options.streams.includes(s.name));
  const plans: StreamPlan[] = [];
  // The team's state and rejected parents in two reads for every stream (a read per stream and kind was 54
  // statements of a small night's sync).
  const states = options.fullRefresh ? new Map() : await ws.state.stateByStream(teamId, settings.today);
  const rejected = await ws.runs.rejectedParentsByStream(teamId);
  for (const stream of selected) {
    plans.push(
      planStream(stream, stream.parents(discovery, settings, scope), states.get(stream.name) ?? new Map(), settings, {
        fullRefresh: Boolean(options.fullRefresh),
        rejectedParents: rejected.get(stream.name) ?? new Set(),
      }),
    );
  }
  const requests = discovery.requests + plans.reduce((sum, p) => sum + p.requests, 0);
  const promptRequests = plans
    .flatMap((p) => p.units)
    .filter((u) => u.parent.promptId !== undefined)
    .reduce((sum, u) => sum + u.estimate, 0);
  const activePrompts = discovery.projects.reduce(
    (n, p) => n + p.prompts.filter((q) => q.prompt_type === 'active').length,
    0,
  );
  const plan: SyncPlan = {
    teamId,
    today: settings.today,
    window,
    streams: plans.map((p) => ({
      stream: p.stream.name,
      units: p.units.length,
      requests: p.requests,
      parents: p.parents,
      complete: p.complete,
      deferred: p.deferred,
      ...skipReason(p.stream, scope),
    })),
    requests,
    activePrompts,
    promptRequests,
    otherRequests: requests - promptRequests,
    requestsPerActivePrompt: activePrompts > 0 ? Math.round((promptRequests / activePrompts) * 100) / 100 : 0,
    rotationDays: settings.rotationDays,
    usablePerWindow: budget.usable,
    windowMs: budget.windowMs,
    floorMs: Math.round((requests / budget.usable) * budget.windowMs),
    unreachable: discovery.unreachable,
  };
  return { selected, plans, plan, scope, window };
}

function skipReason(stream: StreamDef, scope: TeamScope): { skipped?: string } {
  const reason = stream.unavailable?.(scope);
  return reason ? { skipped: reason } : {};
}
