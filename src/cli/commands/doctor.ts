/** `vwh doctor`: what a nightly run needs, checked, with what to fix. Exit 1 when a check fails. */
import type { Command } from 'commander';
import { exitCodesHelp } from '../../core/errors.js';
import { BaseUrl, DbFile } from '../../core/inputs.js';
import { textFlag } from '../validate.js';

interface DoctorCliFlags {
  config?: string;
  db?: string;
  keyFile?: string;
  baseUrl?: string;
  json?: boolean;
  deep?: boolean;
}

export function register(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check the config, the key (validity, tier, the API day), the warehouse and its lock, disk space and the published copy.',
    )
    .option('--config <path>', 'config file (default ./vwh.config.json when present)')
    .option('--db <path>', 'DuckDB file', textFlag('--db', DbFile))
    .option('--key-file <path>', 'read the API key from this file instead of VWH_API_KEY')
    .option('--base-url <url>', 'API base URL (default VWH_BASE_URL)', textFlag('--base-url', BaseUrl))
    .option('--json', 'print the checks as JSON')
    .option('--deep', 'also read every block of the warehouse and the published copy (DuckDB checks each checksum)')
    .addHelpText(
      'after',
      exitCodesHelp([0, 1, 64], { 0: 'nothing failed (warnings allowed)', 1: 'a check failed (it says what to fix)' }),
    )
    .action(async (flags: DoctorCliFlags) => {
      const { doctor, formatChecks } = await import('../../ops/doctor.js');
      const { jsonDocument, logFormat } = await import('../../core/log.js');
      const checks = await doctor(flags);
      // JSON mode: the checks as one JSON line, whatever --json says
      process.stdout.write(flags.json || logFormat() === 'json' ? jsonDocument(checks) : formatChecks(checks));
      process.exitCode = checks.some((c) => c.status === 'fail') ? 1 : 0;
    });
}
