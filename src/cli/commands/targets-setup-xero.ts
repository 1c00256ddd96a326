import { type CommandContext, CommandError } from '../command.js';

// `booksync targets setup xero [--apply]`: not built yet for this target.

export async function setupXero(_context: CommandContext, _apply: boolean): Promise<number> {
  throw new CommandError('targets setup xero: not available yet; map the roles with TARGET_ACCOUNTS');
}
