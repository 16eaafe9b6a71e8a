/**
 * The task pipeline's timeline. A task is a function of the simulated clock: it waits one step (pending), runs the
 * six phases one step each (processing), then completes. The step is the server's background delay / 7, so a task
 * finishes within the configured delay in real time, and at once when the simulated clock is moved past it.
 * A failure planned for a phase (test hook) ends the task `failed` at the end of that phase.
 */
import { TASK_PHASES } from '../../../api/index.js';

export type Phase = (typeof TASK_PHASES)[number];
export const STEPS = TASK_PHASES.length + 1;

export interface PlannedFailure {
  phase: Phase;
  code: 'LLM_ERROR' | 'WORKFLOW_ERROR';
  message: string;
}

export interface Timeline {
  status: 'pending' | 'processing' | 'completed' | 'failed';
  phase: Phase | null;
  progress: number;
  started_ms: number | null;
  /** When the current status began (the last transition). */
  changed_ms: number;
  finished_ms: number | null;
}

export function timeline(createdMs: number, stepMs: number, nowMs: number, failure: PlannedFailure | null): Timeline {
  const step = Math.max(1, stepMs);
  const index = Math.max(0, Math.floor((nowMs - createdMs) / step));
  const started = createdMs + step;
  if (failure) {
    const p = TASK_PHASES.indexOf(failure.phase);
    if (index >= p + 2) {
      const at = createdMs + (p + 2) * step;
      return {
        status: 'failed',
        phase: null,
        progress: progressAt(p + 1),
        started_ms: started,
        changed_ms: at,
        finished_ms: at,
      };
    }
  }
  if (index === 0)
    return { status: 'pending', phase: null, progress: 0, started_ms: null, changed_ms: createdMs, finished_ms: null };
  if (index >= STEPS) {
    const at = createdMs + STEPS * step;
    return { status: 'completed', phase: null, progress: 100, started_ms: started, changed_ms: at, finished_ms: at };
  }
  return {
    status: 'processing',
    phase: TASK_PHASES[index - 1] as Phase,
    progress: progressAt(index),
    started_ms: started,
    changed_ms: createdMs + index * step,
    finished_ms: null,
  };
}

/** Progress once `stepsDone` steps (pending included) are behind: phases done / phases. */
function progressAt(stepsDone: number): number {
  return Math.min(100, Math.round(((stepsDone - 1) / TASK_PHASES.length) * 100));
}
