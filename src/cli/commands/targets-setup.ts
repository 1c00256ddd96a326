import { randomUUID } from 'node:crypto';
import { parseEnv } from 'node:util';
import { envFileIn, writeEnvSetting } from '../../config/env-file.js';
import type { Settings } from '../../config/settings.js';
import { connectedCompany } from '../../runtime/oauth-connection.js';
import { openQuickBooksTarget, quickBooksSettings } from '../../runtime/quickbooks-connection.js';
import { readPrivateFile, somethingAt } from '../../storage/private-files.js';
import { type AccountMapping, type AccountRole, parseAccountMapping } from '../../targets/account-mapping.js';
import { QboClient } from '../../targets/quickbooks/http-client.js';
import { RECONNECT } from '../../targets/quickbooks/index.js';
import { realmLimiter } from '../../targets/quickbooks/limiter.js';
import { mappingCode, planQuickBooksSetup } from '../../targets/quickbooks/setup-plan.js';
import { hasConflicts, mappingValue, planLines, type SetupPlan, toCreate } from '../../targets/setup/plan.js';
import { type CommandContext, CommandError } from '../command.js';

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
nothing.`;

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

/** The settings file the other commands read; TARGET_ACCOUNTS as it says it now. */
export function settingsFile(settings: Settings): { file: string; saved: string | undefined } {
  const file = process.env.BOOKSYNC_ENV_FILE || envFileIn(settings.BOOKSYNC_DATA_DIR);
  const saved = somethingAt(file) ? parseEnv(readPrivateFile(file)).TARGET_ACCOUNTS : undefined;
  return { file, saved };
}

async function setupQuickBooks({ settings, out, logger }: CommandContext, apply: boolean): Promise<number> {
  let qbo: ReturnType<typeof quickBooksSettings>;
  let mapping: ReturnType<typeof parseAccountMapping>;
  try {
    qbo = quickBooksSettings(settings);
    mapping = parseAccountMapping(settings.TARGET_ACCOUNTS);
  } catch (error) {
    throw new CommandError((error as Error).message);
  }
  const realmId = await connectedCompany(
    settings.QBO_REALM_ID,
    qbo.connection,
    'quickbooks',
    `not connected to a QuickBooks company: ${RECONNECT}`,
  );
  const client = new QboClient({
    baseUrl: settings.QBO_BASE_URL,
    realmId,
    tokens: qbo.tokenStore(realmId, logger),
    limiter: realmLimiter(realmId),
    logger,
  });
  const chart = await client.selectPages('Account', {}, 'Id');
  const plan = planQuickBooksSetup(chart, mapping);
  out(`QuickBooks company ${realmId}: ${chart.length} accounts; booksync's account roles:`);
  for (const line of planLines(plan)) out(`  ${line}`);
  const { file, saved } = settingsFile(settings);
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

  const created: Partial<Record<AccountRole, string>> = {};
  const chartAfter = [...chart];
  for (const step of missing) {
    const account = await client.write('Account', { ...step.fields }, { requestid: randomUUID() });
    chartAfter.push(account);
    created[step.role] = account.Id;
    out(`created ${step.name} (${step.type}), id ${account.Id}`);
  }
  // A new account's code as the directory will look it up (its Id, unless that is another account's number).
  for (const role of Object.keys(created) as AccountRole[]) {
    const account = chartAfter.find((a) => a.Id === created[role]);
    const code = account && mappingCode(account, chartAfter);
    if (!code)
      throw new CommandError(`${role}: the new account's id ${created[role]} is another account's number`);
    created[role] = code;
  }
  return written(plan, created, {
    settings,
    file,
    saved,
    out,
    verify: async (accounts) => {
      const target = await openQuickBooksTarget({ settings, accounts, logger });
      await target.verify();
    },
  });
}

/**
 * Writes the mapping, says what changed, and checks it as start-up will (`verify`: the target's verify()
 * under the mapping written).
 */
export async function written(
  plan: SetupPlan,
  created: Partial<Record<AccountRole, string>>,
  context: Pick<CommandContext, 'settings' | 'out'> & {
    file: string;
    saved: string | undefined;
    verify: (accounts: AccountMapping) => Promise<void>;
  },
): Promise<number> {
  const { settings, file, saved, out, verify } = context;
  const value = mappingValue(plan, created) as string;
  const changed = writeEnvSetting(file, 'TARGET_ACCOUNTS', value);
  if (!changed && Object.keys(created).length === 0)
    out(`nothing to change: every role is matched and ${file} maps them`);
  else out(`TARGET_ACCOUNTS ${changed ? 'written to' : 'unchanged in'} ${file}`);
  if (
    settings.TARGET_ACCOUNTS !== undefined &&
    settings.TARGET_ACCOUNTS !== saved &&
    settings.TARGET_ACCOUNTS !== value
  )
    out(
      'TARGET_ACCOUNTS is set in the environment and wins over the file: unset it to use the mapping written',
    );
  try {
    await verify(parseAccountMapping(value));
    out('every role maps to an account of the type it needs: booksync can start');
    return 0;
  } catch (error) {
    out((error as Error).message);
    return 1;
  }
}
