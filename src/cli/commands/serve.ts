/**
 * `vwh serve`: starts the reference server of the public data API (src/reference) and runs until SIGINT/SIGTERM.
 * Prints `listening on http://HOST:PORT` when ready, and with --demo the line `demo api key: <key>` (the one place
 * a key is printed on purpose; --key-file writes it to a file instead of making scripts scrape stdout).
 */
import { writeFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { exitCodesHelp, VwhError } from '../../core/errors.js';
import { ApiDay, Fraction, Port, timerMs, wholeNumber } from '../../core/inputs.js';
import type { ReferenceServer } from '../../reference/index.js';
import { numberFlag, textFlag } from '../validate.js';

export interface ServeFlags {
  host: string;
  port: number;
  seed: number;
  today?: string;
  demo?: boolean;
  historyDays: number;
  projects: number;
  prompts: number;
  rateWindowMs: number;
  lateFraction: number;
  faults?: string;
  backgroundDelayMs: number;
  keyFile?: string;
  allowHttpWebhooks?: boolean;
  allowRemoteControl?: boolean;
}

/** Starts the server for these flags, prints the ready lines to `out`, and stops when `signal` aborts. */
export async function runServe(
  flags: ServeFlags,
  out: NodeJS.WritableStream,
  signal: AbortSignal,
): Promise<ReferenceServer> {
  const { parseFaultSpec } = await import('../../reference/faults/spec.js');
  const { isWildcardHost } = await import('../../reference/http/control-guard.js');
  const { startReferenceServer } = await import('../../reference/index.js');
  const { configureServices } = await import('../../reference/services/registry.js');
  if (flags.faults) {
    try {
      parseFaultSpec(flags.faults);
    } catch (error) {
      throw new VwhError('USAGE', error instanceof Error ? error.message : String(error));
    }
  }
  const server = await startReferenceServer({
    host: flags.host,
    port: flags.port,
    seed: flags.seed,
    today: flags.today,
    demo: flags.demo === true,
    historyDays: flags.historyDays,
    projects: flags.projects,
    prompts: flags.prompts,
    rateWindowMs: flags.rateWindowMs,
    lateFraction: flags.lateFraction,
    faults: flags.faults ?? null,
    backgroundDelayMs: flags.backgroundDelayMs,
    allowRemoteControl: flags.allowRemoteControl === true,
  });
  if (flags.allowHttpWebhooks) configureServices(server.state, { allowHttpLoopback: true });
  if (server.demoApiKey && flags.keyFile) writeFileSync(flags.keyFile, `${server.demoApiKey}\n`, { mode: 0o600 });
  // JSON mode: each ready line an event with its value in a field (the key is printed on purpose: not redacted)
  const { logFormat } = await import('../../core/log.js');
  const say = (text: string, fields: Record<string, unknown>) =>
    out.write(
      logFormat() === 'json'
        ? `${JSON.stringify({ ts: new Date().toISOString(), level: 'info', msg: text, ...fields })}\n`
        : `${text}\n`,
    );
  say(`listening on ${server.url}`, { url: server.url });
  if (isWildcardHost(flags.host)) {
    say(
      `warning: --host ${flags.host} listens on every interface: anyone who reaches this machine can call the API, and the control plane with the token below`,
      { host: flags.host },
    );
  }
  if (server.controlToken)
    say(`control token: ${server.controlToken} (send it as X-Reference-Token on /_reference/ calls)`, {
      control_token: server.controlToken,
    });
  if (server.demoApiKey) say(`demo api key: ${server.demoApiKey}`, { demo_api_key: server.demoApiKey });
  say(`simulated today: ${server.state.sim.today()} (control plane: ${server.url}/_reference/clock)`, {
    simulated_today: server.state.sim.today(),
  });
  const stop = () => void server.close();
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  return server;
}

export function register(program: Command): void {
  program
    .command('serve')
    .description('Run the reference server of the public data API (seeded, clock-controlled, with fault injection).')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <port>', 'port; 0 picks any free port', numberFlag('--port', Port), 8787)
    .option('--seed <n>', 'seed of the simulated world', numberFlag('--seed', wholeNumber(0)), 42)
    .option(
      '--today <YYYY-MM-DD>',
      'simulated date (default: today, UTC); the clock starts at 06:00 UTC',
      textFlag('--today', ApiDay),
    )
    .option('--demo', 'create a demo team with projects and history, and print its API key')
    .option('--history-days <n>', 'days of history of the demo team', numberFlag('--history-days', wholeNumber(1)), 90)
    .option('--projects <n>', 'demo projects (benchmark scale knob)', numberFlag('--projects', wholeNumber(1)), 3)
    .option(
      '--prompts <n>',
      'prompts per demo project (benchmark scale knob)',
      numberFlag('--prompts', wholeNumber(1)),
      12,
    )
    .option(
      '--rate-window-ms <ms>',
      'length of the sliding rate-limit window (60000 in the spec)',
      numberFlag('--rate-window-ms', timerMs(1)),
      60000,
    )
    .option(
      '--late-fraction <f>',
      "share of a day's answers that arrive a day late",
      numberFlag('--late-fraction', Fraction),
      0.1,
    )
    .option(
      '--faults <spec>',
      'fault injection, e.g. 5xx=0.05,429=0.02,reset=0.01,truncate=0.01,slow=0.02:300ms@/projects/*/prompts/*/chats',
    )
    .option(
      '--background-delay-ms <ms>',
      'real time background work takes (bootstrap, suggested prompts)',
      numberFlag('--background-delay-ms', wholeNumber(0)),
      2000,
    )
    .option(
      '--allow-http-webhooks',
      'also deliver webhooks to plain http:// on loopback hosts (local receivers in tests); HTTPS only otherwise',
    )
    .option(
      '--allow-remote-control',
      'allow a non-loopback --host; every /_reference/ call must then carry the control token printed at start',
    )
    .addOption(new Option('--key-file <path>', 'with --demo: also write the demo API key to this file (mode 600)'))
    .addHelpText('after', exitCodesHelp([0, 1, 64], { 0: 'stopped by SIGINT or SIGTERM' }))
    .action(async (flags: ServeFlags) => {
      const controller = new AbortController();
      const onSignal = () => controller.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      await runServe(flags, process.stdout, controller.signal);
      await new Promise<void>((resolve) =>
        controller.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    });
}
