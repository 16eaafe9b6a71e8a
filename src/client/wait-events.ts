/** Waits the client goes through, published so the progress display can show them instead of a silent hang. */
export type WaitReason = 'budget' | 'retry-after' | 'backoff';

export interface WaitEvent {
  reason: WaitReason;
  /** How long the wait is expected to last from now. */
  ms: number;
  /** Clock time (epoch ms) the wait ends. */
  until: number;
}

export type WaitListener = (event: WaitEvent) => void;

/** A listener list; `on` returns the function that removes the listener. A throwing listener is ignored. */
export class WaitEmitter {
  private readonly listeners = new Set<WaitListener>();

  on(listener: WaitListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: WaitEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A broken progress display must not stop the sync.
      }
    }
  }
}
