import type { Logger } from '../core/log.js';
import type { Session } from '../warehouse/session.js';
import { blocks, type NodeResult, report, skippedResult } from './results.js';
import type { Model, Project } from './types.js';

/**
 * DuckDB's memory limit is the process's, shared by the models running at once: a model that runs out of memory beside
 * others (DuckDB's "Out of Memory Error") is run again alone, once every running model has ended and before any other
 * starts, with the whole limit to itself. What it committed before failing (an incremental model's earlier batches)
 * stands; a second failure is its result. Only a model that fails alone fails the build: the 10 × world's first build
 * (100 × 50 × 365, 1 GB) ran four marts out of memory two at a time, each of which builds alone.
 */
function outOfMemory(result: NodeResult): boolean {
  return result.status === 'error' && /Out of Memory Error/i.test(result.message ?? '');
}

/** Runs models in DAG order, up to one per executor at a time; a model whose parent failed is skipped. */
export async function schedule(
  order: string[],
  project: Project,
  executors: Session[],
  results: Map<string, NodeResult>,
  runNode: (model: Model, exec: Session) => Promise<NodeResult>,
  logger: Logger,
): Promise<void> {
  const inRun = new Set(order);
  const remaining = [...order];
  const free = [...executors];
  const running = new Map<string, Promise<void>>();
  // models that ran out of memory beside others, to run again alone
  const alone: Model[] = [];
  const start = (model: Model, retry: boolean) => {
    const exec = free.pop() as Session;
    running.set(
      model.id,
      runNode(model, exec)
        .catch((error: unknown) => skippedResult(model, `${model.path}: ${(error as Error).message}`, 'error'))
        .then((result) => {
          free.push(exec);
          running.delete(model.id);
          if (!retry && executors.length > 1 && outOfMemory(result)) {
            logger.warn(`${model.id} ran out of memory beside other models: it runs again alone`, { node: model.id });
            alone.push(model);
            return;
          }
          const done = retry
            ? {
                ...result,
                message: `${result.message ?? ''} (run alone after running out of memory beside other models)`.trim(),
              }
            : result;
          results.set(model.id, done);
          report(logger, done);
        }),
    );
  };
  while (remaining.length || running.size || alone.length) {
    if (alone.length) {
      // no model starts until those waiting to run alone have run, each with no other beside it
      if (running.size === 0) start(alone.shift() as Model, true);
      await Promise.race(running.values());
      continue;
    }
    for (let i = 0; i < remaining.length && free.length; ) {
      const id = remaining[i] as string;
      const model = project.models.get(id) as Model;
      const parents = model.parents.filter((p) => inRun.has(p));
      if (parents.some((p) => !results.has(p))) {
        i++;
        continue;
      }
      remaining.splice(i, 1);
      const blocker = parents.find((p) => blocks(results.get(p)?.status));
      if (blocker) {
        const skipped = skippedResult(model, `skipped: upstream ${blocker} ${results.get(blocker)?.status}`);
        results.set(id, skipped);
        report(logger, skipped);
        i = 0;
        continue;
      }
      start(model, false);
    }
    if (running.size) await Promise.race(running.values());
    else if (remaining.length) break;
  }
}
