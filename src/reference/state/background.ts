/**
 * Background work (bootstrap pipeline, filling suggested placeholders, fetching titles). A task runs after
 * `delayMs` of the injected Clock, or at once when the simulated clock is advanced past its due time.
 */
import type { Clock } from '../../core/clock.js';

interface Task {
  dueSim: number;
  run: () => Promise<void> | void;
  started: boolean;
}

export class Background {
  private tasks: Task[] = [];
  private running = new Set<Promise<void>>();
  private abort = new AbortController();

  constructor(
    private readonly clock: Clock,
    private readonly simNow: () => number,
    readonly delayMs: number,
  ) {}

  schedule(run: () => Promise<void> | void, delayMs = this.delayMs): void {
    const task: Task = { dueSim: this.simNow() + delayMs, run, started: false };
    this.tasks.push(task);
    this.clock.sleep(delayMs, this.abort.signal).then(
      () => this.start(task),
      () => undefined,
    );
  }

  /** Runs every task whose simulated due time has passed (called after the control plane moves the clock). */
  runDue(): void {
    const now = this.simNow();
    for (const task of this.tasks) if (task.dueSim <= now) this.start(task);
  }

  /** Resolves when nothing is running or queued to run now (tests use it after advancing the clock). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Aborted when the server stops or resets: long waits inside background work listen to it. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get pending(): number {
    return this.tasks.length;
  }

  stop(): void {
    this.abort.abort();
    this.abort = new AbortController();
    this.tasks = [];
  }

  private start(task: Task): void {
    if (task.started) return;
    task.started = true;
    this.tasks = this.tasks.filter((t) => t !== task);
    const promise = Promise.resolve()
      .then(task.run)
      .catch(() => undefined)
      .finally(() => this.running.delete(promise));
    this.running.add(promise);
  }
}
