/** Idempotency keys of suggested-prompt generation: the same key on the same project replays the first answer. */
export class IdempotencyStore {
  private readonly answers = new Map<string, unknown>();

  private key(projectId: string, idempotencyKey: string): string {
    return `${projectId}\u0000${idempotencyKey}`;
  }

  get(projectId: string, idempotencyKey: string): unknown {
    return this.answers.get(this.key(projectId, idempotencyKey));
  }

  set(projectId: string, idempotencyKey: string, answer: unknown): void {
    this.answers.set(this.key(projectId, idempotencyKey), answer);
  }
}
