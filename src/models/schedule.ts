import type { Logger } from '../core/log.js';
import type { Session } from '../warehouse/session.js';
import { blocks, type NodeResult, report, skippedResult } from './results.js';
import type { Model, Project } from './types.js';

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
  while (remaining.length || running.size) {
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
      const exec = free.pop() as Session;
      running.set(
        id,
        runNode(model, exec)
          .catch((error: unknown) => skippedResult(model, `${model.path}: ${(error as Error).message}`, 'error'))
          .then((result) => {
            results.set(id, result);
            report(logger, result);
            free.push(exec);
            running.delete(id);
          }),
      );
    }
    if (running.size) await Promise.race(running.values());
    else if (remaining.length) break;
  }
}
