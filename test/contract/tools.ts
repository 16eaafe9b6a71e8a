/**
 * The contract tools of this folder's own package (package.json, package-lock.json): Stoplight Prism, Redocly CLI,
 * Stoplight Spectral and ajv, from the npm registry, installed apart from the project's dependencies with
 * `npm ci --prefix test/contract`. A test that needs them and finds them missing fails with that command.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument, type OpenApiDocument } from '../../src/api/index.js';
import { tempDir } from '../fixtures.js';

export const CONTRACT_DIR = dirname(fileURLToPath(import.meta.url));
const MODULES = join(CONTRACT_DIR, 'node_modules');
export const INSTALL_HINT =
  'the contract tools are not installed: run `npm ci --prefix test/contract` (see docs/api-contract.md)';

/** The entry script of a tool's bin, or a failure saying how to install the tools. */
export function toolBin(pkg: string, bin: string): string {
  const manifest = join(MODULES, pkg, 'package.json');
  if (!existsSync(manifest)) throw new Error(`${INSTALL_HINT} (missing ${pkg})`);
  const require = createRequire(manifest);
  const { bin: bins } = require(manifest) as { bin: string | Record<string, string> };
  const relative = typeof bins === 'string' ? bins : bins[bin];
  if (!relative) throw new Error(`${pkg} has no bin ${bin}`);
  return join(MODULES, pkg, relative);
}

/** Requires a package of this folder (a CommonJS require from test/contract/node_modules). */
export function requireTool<T>(specifier: string): T {
  const require = createRequire(join(CONTRACT_DIR, 'package.json'));
  try {
    return require(specifier) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND')
      throw new Error(`${INSTALL_HINT} (missing ${specifier})`);
    throw error;
  }
}

/** Environment of every tool run: no telemetry, no update check (the tests reach nothing beyond loopback). */
export const TOOL_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  SCARF_ANALYTICS: 'false',
  DO_NOT_TRACK: '1',
  NO_COLOR: '1',
  FORCE_COLOR: '0',
};

/** Writes the generated document to a temp file and returns its path. */
export function writeDocument(options: Parameters<typeof buildOpenApiDocument>[0] = {}): {
  path: string;
  doc: OpenApiDocument;
} {
  const doc = buildOpenApiDocument(options);
  const path = join(tempDir('vwh-contract-').dir, 'openapi.json');
  writeFileSync(path, JSON.stringify(doc, null, 2));
  return { path, doc };
}

export interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a tool to its end. */
export function runTool(script: string, args: string[], cwd = CONTRACT_DIR): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd, env: TOOL_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface Prism {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Every request/response violation and every request Prism refused, as Prism logged them. */
  violations(): string[];
  /** Everything Prism logged. */
  log(): string;
  /** How many requests Prism received. */
  requests(): number;
  close(): Promise<void>;
}

/** `prism proxy DOC UPSTREAM --errors` on a free loopback port. */
export async function startPrism(documentPath: string, upstream: string): Promise<Prism> {
  const script = toolBin('@stoplight/prism-cli', 'prism');
  const child: ChildProcess = spawn(
    process.execPath,
    [script, 'proxy', documentPath, upstream, '--errors', '--host', '127.0.0.1', '--port', '0'],
    { cwd: CONTRACT_DIR, env: TOOL_ENV, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not start:\n${log}`)), 30_000);
    const onData = (chunk: Buffer) => {
      log += String(chunk);
      const match = /Prism is listening on (http:\/\/[\d.]+:\d+)/.exec(log);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`prism exited (${code}) before listening:\n${log}`));
    });
  });
  return {
    url,
    log: () => log,
    requests: () => (log.match(/Request received/g) ?? []).length,
    violations: () =>
      log.split('\n').filter((line) => /Violation:|Request terminated with error|Selected route not found/.test(line)),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
