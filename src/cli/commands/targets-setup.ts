import { quickBooksSetup } from '../../runtime/targets/quickbooks-setup.js';
import { hasConflicts, mappingValue, planLines, toCreate } from '../../targets/setup/plan.js';
import { type CommandContext, CommandError } from '../command.js';
import { TARGET_WAIT_MS, whenAvailable } from '../when-available.js';

export { settingsFile, written } from '../../runtime/targets/target-setup.js';

// `booksync targets setup quickbooks [--apply]`: the company's chart of accounts read, each role matched to
// an account of the type its documents need or planned for creation (setup-plan.ts), the plan printed. With
// --apply the missing accounts are created and the mapping written as TARGET_ACCOUNTS into the settings file
// the other commands read (BOOKSYNC_ENV_FILE, else BOOKSYNC_DATA_DIR/booksync.env), its other lines kept;
// TARGET_ACCOUNTS in the environment still wins over the file. Nothing is created while a role conflicts.

export const setupUsage = `booksync targets setup quickbooks [--apply]

Reads the connected company's chart of accounts and prints, for each account role, the account booksync will
use (by the number or id TARGET_ACCOUNTS gives it, else by name, else by subtype such as Undeposited Funds),
the account to create (name, type), or a conflict (an account with the role's number or name but of a type
the role cannot use: rename or map it, then run again). Exit 1 on a conflict. --apply creates the missing
accounts and writes TARGET_ACCOUNTS to the settings file the other commands read; run again, it changes
nothing.
booksync targets setup xero [--apply]: the same by account code, the receivable and payable Xero's own
system accounts; --apply needs a connection with the accounting.settings scope.
booksync targets setup tryton [--apply]: the same by account code, else booksync's name or Tryton's own chart
template's account (TRYTON_URL, TRYTON_DATABASE, TRYTON_USER, TRYTON_PASSWORD); --apply also creates the
journals REV, EXP, MISC and a payment term when missing.`;

/** Each target's setup, in a module of its own, loaded only for the target named. */
const setups: Record<string, () => Promise<(context: CommandContext, apply: boolean) => Promise<number>>> = {
  quickbooks: async () => setupQuickBooks,
  xero: async () => (await import('./targets-setup-xero.js')).setupXero,
  tryton: async () => (await import('./targets-setup-tryton.js')).setupTryton,
};

export async function setupTarget(context: CommandContext): Promise<number> {
  const [target, ...rest] = context.args;
  const setup = target ? setups[target] : undefined;
  if (!setup)
    throw new CommandError(`targets setup: ${Object.keys(setups).join(' | ')} (got '${target ?? ''}')`);
  return (await setup())({ ...context, args: rest }, rest.includes('--apply'));
}

async function setupQuickBooks({ settings, out, logger }: CommandContext, apply: boolean): Promise<number> {
  const read = await whenAvailable(() => quickBooksSetup.readPlan(settings, logger), {
    out,
    withinMs: TARGET_WAIT_MS,
  });
  try {
    out(`${read.company}: ${read.accounts} accounts; booksync's account roles:`);
    for (const line of planLines(read.plan)) out(`  ${line}`);
    const { plan, file, saved } = read;
    if (hasConflicts(plan)) {
      out(
        'conflicts: rename those accounts in QuickBooks or map the roles with TARGET_ACCOUNTS, then run again',
      );
      return 1;
    }
    const missing = toCreate(plan);
    if (!apply) {
      const value = mappingValue(plan);
      if (missing.length > 0) out(`${missing.length} accounts to create: run again with --apply`);
      else if (value !== saved) out(`every role is matched: --apply writes TARGET_ACCOUNTS to ${file}`);
      else out(`every role is matched and ${file} maps them`);
      return 0;
    }
    return await quickBooksSetup.apply(read, { settings, logger, out });
  } finally {
    await read.close();
  }
}
