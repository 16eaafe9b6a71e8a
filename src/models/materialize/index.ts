import type { ModelKind } from '../types.js';
import { materializeEphemeral } from './ephemeral.js';
import { materializeExport } from './export.js';
import { materializeIncrementalByTimeRange } from './incremental-by-time-range.js';
import { materializeIncrementalByUniqueKey } from './incremental-by-unique-key.js';
import { materializeScd2 } from './scd2.js';
import { materializeTable } from './table.js';
import type { Materializer } from './types.js';
import { materializeView } from './view.js';

export type { MaterializeContext, MaterializeResult, Materializer } from './types.js';

export const materializers: Record<ModelKind, Materializer> = {
  view: materializeView,
  table: materializeTable,
  ephemeral: materializeEphemeral,
  incremental_by_time_range: materializeIncrementalByTimeRange,
  incremental_by_unique_key: materializeIncrementalByUniqueKey,
  scd2: materializeScd2,
  export: materializeExport,
};
