import type { Command } from 'commander';

/** `vwh config schema|reference`: vwh.config.json's JSON Schema, and the reference page generated from it. */
export function register(program: Command): void {
  const config = program
    .command('config')
    .description('Print the JSON Schema of vwh.config.json, or its reference page (docs/config.md).');
  config
    .command('schema')
    .description('Print the JSON Schema of vwh.config.json (for editors: "$schema" in the file).')
    .action(async () => {
      const { configJsonSchema } = await import('../../core/config.js');
      process.stdout.write(`${JSON.stringify(configJsonSchema(), null, 2)}\n`);
    });
  config
    .command('reference')
    .description('Print the reference page of vwh.config.json (docs/config.md): every field, its type and default.')
    .action(async () => {
      const { configReference } = await import('../../core/config-reference.js');
      process.stdout.write(configReference());
    });
}
