/**
 * `vwh report NAME|html|--list`: the named reports of sql/reports as CSV, JSON or Markdown, and the HTML report
 * with charts. The work is in src/export/; this file parses flags and prints the summary.
 */
import type { Command } from 'commander';
import { DEFAULT_DB_PATH } from '../../core/defaults.js';
import { VwhError } from '../../core/errors.js';
import { DayRule, DbFileRule } from '../../core/rules.js';
import { REPORT_FORMATS, type ReportFormat } from '../../export/reports/format-names.js';
import { textFlag } from '../validate.js';
import { EXPORT_EXIT_CODES } from './export.js';

interface ReportFlags {
  db: string;
  format?: ReportFormat;
  out?: string;
  project?: string;
  from?: string;
  to?: string;
  bom?: boolean;
  rawCsv?: boolean;
  list?: boolean;
  logFormat?: import('../../core/log.js').LogFormat;
}

/** `--list`: each report's name, title, parameters and description's first sentence. */
export async function listReports(out: NodeJS.WritableStream): Promise<void> {
  const { loadReports } = await import('../../export/reports/catalog.js');
  const { outputLine } = await import('../../core/log.js');
  const reports = [...loadReports().values()];
  const width = Math.max(...reports.map((r) => r.name.length), 4);
  const line = (name: string, title: string, params: string[]) =>
    out.write(
      outputLine(`${name.padEnd(width)}  ${title}${params.length ? ` (${params.join(' ')})` : ''}`, {
        report: name,
        title,
        parameters: params,
      }),
    );
  for (const report of reports) {
    line(
      report.name,
      report.title,
      Object.keys(report.parameters).map((p) => `--${p}`),
    );
  }
  line('html', 'the HTML report with charts, one self-contained file', ['--project', '--from', '--to']);
}

export function register(program: Command): void {
  program
    .command('report')
    .description('Write a named report (sql/reports/*.sql) as CSV, JSON or Markdown; `vwh report --list` names them.')
    .argument('[name]', 'the report (vwh report --list)')
    .option('--list', 'list the reports and their parameters')
    .option(
      '--format <format>',
      `csv, json or md (${REPORT_FORMATS.join('|')}), default: from --out's extension, csv on stdout`,
    )
    .option('--out <file>', 'the file to write (replaced atomically); stdout when absent or -')
    .option('--db <file>', 'the warehouse file (opened read-only)', textFlag('--db', DbFileRule), DEFAULT_DB_PATH)
    .option('--project <id|name>', 'only this project: its id or its name (as vwh sync --projects takes it)')
    .option('--from <day>', 'first day (YYYY-MM-DD)', textFlag('--from', DayRule))
    .option('--to <day>', 'last day (YYYY-MM-DD)', textFlag('--to', DayRule))
    .option('--bom', 'CSV: start with a UTF-8 byte order mark, for Excel')
    .option(
      '--raw-csv',
      "CSV: write text cells as they are (by default one starting with = + - @ tab or CR gets a leading ')",
    )
    .addHelpText(
      'after',
      '\nExamples:\n  vwh report --list\n  vwh report weekly_visibility --out weekly.csv --from 2026-10-01\n' +
        '  vwh report share_of_voice --out sov.md --project "Acme"\n' +
        '  vwh report wow_movers --format json | jq .\n' +
        '  vwh report html --out report.html --from 2026-10-01\n\n' +
        'CSV is RFC 4180 with CRLF line ends, UTF-8, ISO dates; columns are documented in docs/exports.md.' +
        EXPORT_EXIT_CODES,
    )
    .action(async (name: string | undefined, flags: ReportFlags) => {
      if (flags.list) {
        await listReports(process.stdout);
        return;
      }
      if (!name) throw new VwhError('USAGE', 'Name a report (vwh report --list shows them), or pass --list.');
      // the report's own modules only: a table report loads neither the lake's writer nor the HTML report's charts
      const { describeSummary } = await import('../../export/summary.js');
      const { reportFormat, toStdout, writeToDestination } = await import('../../export/reports/destination.js');
      const { createLogger, outputLine, silentLogger } = await import('../../core/log.js');
      // the report on stdout: the summary and the logs go to stderr, or nowhere
      const piped = toStdout(flags.out);
      const log = piped ? silentLogger : createLogger(flags.logFormat ? { format: flags.logFormat } : {});
      const say = (summary: Parameters<typeof describeSummary>[0]) =>
        (piped ? process.stderr : process.stdout).write(outputLine(describeSummary(summary), { ...summary }));
      // Flags are checked before the warehouse is looked for, so a usage error names the flag, not a missing file.
      const source = async () => {
        const { readerFile } = await import('../../ops/read-source.js');
        const { guardedInputsOf } = await import('../../ops/paths.js');
        const { noteLine } = await import('../../core/log.js');
        const db = await readerFile({ db: flags.db }, noteLine);
        return {
          db,
          projectId: flags.project,
          from: flags.from,
          to: flags.to,
          inputs: await guardedInputsOf(flags.db),
        };
      };
      if (name === 'html') {
        // One self-contained HTML file: a --format or --bom meant for the named reports would be silently ignored.
        if (flags.format || flags.bom || flags.rawCsv) {
          throw new VwhError(
            'USAGE',
            `The html report is one HTML file and takes no ${flags.format ? '--format' : flags.bom ? '--bom' : '--raw-csv'}: drop it, or name a table report (vwh report --list) for ${REPORT_FORMATS.join(', ')}.`,
          );
        }
        const params = await source();
        const { writeHtmlReport } = await import('../../export/html/report.js');
        const html = await writeToDestination(flags.out, 'html', process.stdout, (out) =>
          writeHtmlReport({ ...params, out, log }),
        );
        say(html);
        return;
      }
      const format = reportFormat(flags.format, flags.out);
      for (const [flag, given] of [
        ['--bom', flags.bom],
        ['--raw-csv', flags.rawCsv],
      ] as const) {
        if (given && format !== 'csv') {
          throw new VwhError('USAGE', `${flag} is for CSV: drop it with --format ${format}.`);
        }
      }
      const params = await source();
      const { writeReport } = await import('../../export/reports/run.js');
      const summary = await writeToDestination(flags.out, format, process.stdout, (out) =>
        writeReport({ ...params, name, format, out, bom: flags.bom, rawCsv: flags.rawCsv, log }),
      );
      say(summary);
    });
}
