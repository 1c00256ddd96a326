import { type CommandContext, CommandError } from '../command.js';

// `booksync targets setup tryton [--apply]`: not built yet for this target.

export async function setupTryton(_context: CommandContext, _apply: boolean): Promise<number> {
  throw new CommandError('targets setup tryton: not available yet; map the roles with TARGET_ACCOUNTS');
}
