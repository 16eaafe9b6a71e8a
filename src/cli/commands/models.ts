import type { Command } from 'commander';
import { VwhError } from '../../core/errors.js';

// Placeholder until this command lands; it refuses clearly instead of pretending.
export function register(program: Command): void {
  program
    .command('models')
    .description('(models: not available in this build yet)')
    .action(() => {
      throw new VwhError('USAGE', 'vwh models is not available in this build yet.');
    });
}
