/**
 * The one seam between the sync and its test hooks (`SyncHooks`, given as `SyncOptions.hooks`): a hook that throws
 * stops the run as a kill -9 would. Its unit's transaction rolls back (a throw from `inTransaction`, with the units
 * batched beside it) or stays committed (from `afterUnit`), nothing more lands, the run's record stays `running` (the
 * next sync marks it interrupted) and the client is not closed; the sync rejects with the hook's own error. The
 * product never imports a test's error class: it knows such a stop by the `HookStop` that `runHook` wraps it in.
 */

/** What a test hook threw, on its way out of the sync (see above). */
export class HookStop extends Error {
  constructor(readonly thrown: unknown) {
    super('a test hook stopped the sync');
    this.name = 'HookStop';
  }
}

/** Runs a test hook's call; whatever it throws goes on as a `HookStop`. */
export function runHook(call: () => void): void {
  try {
    call();
  } catch (error) {
    throw new HookStop(error);
  }
}
