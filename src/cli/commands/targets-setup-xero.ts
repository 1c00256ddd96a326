import { xeroSetup } from '../../runtime/targets/xero-setup.js';
import { hasConflicts, mappingValue, planLines, toCreate } from '../../targets/setup/plan.js';
import type { CommandContext } from '../command.js';
import { TARGET_WAIT_MS, whenAvailable } from '../when-available.js';

// `booksync targets setup xero [--apply]`: the connected organisation's chart of accounts read, each role
// matched to an account of the type its documents need (the receivable and payable Xero's system accounts) or
// planned for creation (src/targets/xero/setup-plan.ts), the plan printed. With --apply the missing accounts
// are created (PUT Accounts: the connection needs accounting.settings) and the mapping written as
// TARGET_ACCOUNTS into the settings file the other commands read, then checked as start-up checks it.
// Nothing is created while a role conflicts.

export async function setupXero({ settings, out, logger }: CommandContext, apply: boolean): Promise<number> {
  const read = await whenAvailable(() => xeroSetup.readPlan(settings, logger), {
    out,
    withinMs: TARGET_WAIT_MS,
  });
  try {
    out(`${read.company}: ${read.accounts} accounts; booksync's account roles:`);
    for (const line of planLines(read.plan)) out(`  ${line}`);
    const { plan, file, saved } = read;
    if (hasConflicts(plan)) {
      out('conflicts: rename those accounts in Xero or map the roles with TARGET_ACCOUNTS, then run again');
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
    return await xeroSetup.apply(read, { settings, logger, out });
  } finally {
    await read.close();
  }
}
