import { trytonSetup } from '../../runtime/targets/tryton-setup.js';
import { hasConflicts, mappingValue, planLines, toCreate } from '../../targets/setup/plan.js';
import type { CommandContext } from '../command.js';

// `booksync targets setup tryton [--apply]`: the company's chart of accounts read over JSON-RPC, each role
// matched to an account of the kind its documents need or planned for creation
// (src/targets/tryton/setup-plan.ts), the plan printed with the journals and payment term booksync's
// documents use when Tryton lacks them. With --apply the missing accounts, journals and payment term are
// created and the mapping written as TARGET_ACCOUNTS into the settings file the other commands read, then
// checked by the Tryton target's verify() as start-up checks it. Nothing is created while a role conflicts.

export async function setupTryton(
  { settings, out, logger }: CommandContext,
  apply: boolean,
): Promise<number> {
  const read = await trytonSetup.readPlan(settings, logger);
  const { plan, file, saved } = read;
  out(`${read.company}: ${read.accounts} accounts; booksync's account roles:`);
  for (const line of planLines(plan)) out(`  ${line}`);
  for (const problem of plan.problems) out(`  ${problem}`);
  for (const j of read.missingJournals)
    out(`  journal ${j.code} missing: to create ${j.name} (type ${j.type})`);
  if (read.missingPaymentTerm) out(`  no invoice payment term: to create ${read.missingPaymentTerm}`);
  if (hasConflicts(plan) || plan.problems.length > 0) {
    out('conflicts: change those accounts in Tryton or map the roles with TARGET_ACCOUNTS, then run again');
    return 1;
  }
  if (apply) return trytonSetup.apply(read, { settings, logger, out });
  const accounts = toCreate(plan).length;
  const others = read.missingJournals.length + (read.missingPaymentTerm ? 1 : 0);
  const value = mappingValue(plan);
  if (accounts + others > 0)
    out(
      `${accounts} accounts${others > 0 ? ` and ${others} journals or payment terms` : ''} to create: run again with --apply`,
    );
  else if (value !== saved) out(`every role is matched: --apply writes TARGET_ACCOUNTS to ${file}`);
  else out(`every role is matched and ${file} maps them`);
  return 0;
}
