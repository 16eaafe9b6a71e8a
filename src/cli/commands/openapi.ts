import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { exitCodesHelp, VwhError } from '../../core/errors.js';

interface OpenapiOptions {
  out?: string;
  serverUrl?: string;
}

/** `vwh openapi`: prints (or writes) the OpenAPI 3.1 document generated from the contract in src/api/. */
export function register(program: Command): void {
  program
    .command('openapi')
    .description('Print the OpenAPI 3.1 document of the services, generated from the contract in src/api/.')
    .option('-o, --out <file>', 'write the document to FILE instead of stdout (folders are created)')
    .option('--server-url <url>', 'servers[0].url of the document (default "/"; paths carry their full base)')
    .addHelpText(
      'after',
      `
The document covers every endpoint of the catalogue: the public data API under /api/public/v1, the content
service (/api/v1/tasks, /api/v1/articles), the bootstrap service (/api/v1/bootstrap/*, /api/v2/projects/{id})
and the team service (/api/v2). Shared resources are under components.schemas; X-API-Key is the security
scheme; every operation lists its error responses with example bodies; webhook deliveries are under webhooks.

Examples:
  vwh openapi > openapi.json
  vwh openapi --out docs/openapi.json --server-url http://localhost:8787
${exitCodesHelp([0, 64], { 64: 'also: --out cannot be written' })}`,
    )
    .action(async (options: OpenapiOptions) => {
      const { buildOpenApiDocument } = await import('../../api/index.js');
      const { jsonDocument, outputLine } = await import('../../core/log.js');
      const doc = buildOpenApiDocument(options.serverUrl === undefined ? {} : { serverUrl: options.serverUrl });
      // indented for a person; one line in JSON mode
      const text = jsonDocument(doc);
      if (options.out === undefined) {
        process.stdout.write(text);
        return;
      }
      try {
        await mkdir(dirname(options.out), { recursive: true });
        await writeFile(options.out, text);
      } catch (error) {
        throw new VwhError('USAGE', `cannot write ${options.out}: ${(error as Error).message}`, { cause: error });
      }
      process.stderr.write(outputLine(`vwh: wrote the OpenAPI document to ${options.out}`, { out: options.out }));
    });
}
