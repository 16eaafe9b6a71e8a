/**
 * Every `vwh` call, `vwh --help` included, imports all the command files below, so they load lazily: a command file
 * imports at its top only what declaring the command needs (commander, the flag validators, help-text constants) and
 * loads DuckDB, HTTP, the pipeline and the rest with `await import()` when its action runs. startup.test.ts checks it.
 */
import type { Command } from 'commander';
import { register as registerDoctor } from './doctor.js';
import { register as registerEvents } from './events.js';
import { register as registerExport } from './export.js';
import { register as registerModels } from './models.js';
import { register as registerOpenapi } from './openapi.js';
import { register as registerQuery } from './query.js';
import { register as registerReport } from './report.js';
import { register as registerRun } from './run.js';
import { register as registerSchedule } from './schedule.js';
import { register as registerServe } from './serve.js';
import { register as registerStatus } from './status.js';
import { register as registerSync } from './sync.js';

/** Every `vwh` subcommand; each file under this folder owns one command and its --help. */
export function registerCommands(program: Command): void {
  registerRun(program);
  registerSchedule(program);
  registerStatus(program);
  registerServe(program);
  registerOpenapi(program);
  registerSync(program);
  registerModels(program);
  registerQuery(program);
  registerExport(program);
  registerEvents(program);
  registerDoctor(program);
  registerReport(program);
}
