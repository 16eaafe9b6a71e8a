/**
 * Saves a rate budget's window to its `BudgetStore` without slowing the budget down: a change marks the window
 * dirty, saves are coalesced (at most one in flight) and spaced at least `everyMs` apart, and a failed save is kept
 * for `flush` to rethrow rather than thrown into a request.
 */
import { timerMs } from '../core/clock.js';
import type { BudgetStore } from './budget-store.js';

export class BudgetSaver {
  private saving: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastSaveAt = Number.NEGATIVE_INFINITY;
  private dirty = false;
  private error: unknown;

  constructor(
    private readonly store: BudgetStore,
    private readonly keyId: string,
    /** The timestamps to save, read when a save starts. */
    private readonly snapshot: () => number[],
    private readonly everyMs: number,
  ) {}

  /** The window changed: save it soon. */
  changed(): void {
    this.dirty = true;
    if (this.saving || this.timer) return;
    // Real time, not the injected clock: this only spaces out I/O, it decides nothing about the window.
    const wait = this.lastSaveAt + this.everyMs - Date.now();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.start();
      }, timerMs(wait));
      this.timer.unref?.();
      return;
    }
    this.start();
  }

  /** Waits for pending saves (a spaced one starts now); rethrows the last save error, if any. */
  async flush(): Promise<void> {
    for (;;) {
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
      if (this.saving) await this.saving;
      else if (this.dirty) await this.save();
      else break;
    }
    if (this.error !== undefined) {
      const error = this.error;
      this.error = undefined;
      throw error;
    }
  }

  private start(): void {
    if (this.saving || !this.dirty) return;
    this.lastSaveAt = Date.now();
    const run = this.save();
    this.saving = run;
    void run.finally(() => {
      if (this.saving === run) this.saving = undefined;
      // What changed while saving goes in the next save, spaced like any other.
      if (this.dirty) this.changed();
    });
  }

  private async save(): Promise<void> {
    try {
      this.dirty = false;
      await this.store.save(this.keyId, this.snapshot());
    } catch (error) {
      this.error = error;
    }
  }
}
