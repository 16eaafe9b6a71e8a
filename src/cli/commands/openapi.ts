import type { Command } from 'commander';
import { VwhError } from '../../core/errors.js';

// Placeholder until this command lands; it refuses clearly instead of pretending.
export function register(program: Command): void {
  program
    .command('openapi')
    .description('(openapi: not available in this build yet)')
    .action(() => {
      throw new VwhError('USAGE', 'vwh openapi is not available in this build yet.');
    });
}
