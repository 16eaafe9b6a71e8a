import { VwhError } from '../core/errors.js';
import type { Relations } from './relations.js';
import type { ModelStateRow } from './state.js';
import type { Model } from './types.js';

/**
 * scd2 history cannot be recomputed from the source, so a model last built as scd2 whose kind changed is refused
 * rather than rebuilt over its table (every other kind replaces or drops what is there). Dropping or renaming the
 * table by hand is the deliberate way out.
 */
export function guardHistory(relations: Relations, model: Model, previous: ModelStateRow | undefined): void {
  if (previous?.kind !== 'scd2' || model.config.kind === 'scd2') return;
  if (relations.kind(model.schema, model.name) !== 'table') return;
  throw new VwhError(
    'MODEL_ERROR',
    `${model.id} holds scd2 history, and its kind is now ${model.config.kind}, which would replace that table; ` +
      `nothing was changed. To keep the history, put kind: scd2 back or rename the file; to discard it, ` +
      `DROP TABLE ${model.id} by hand first.`,
  );
}
