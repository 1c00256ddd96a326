import { randomUUID } from 'node:crypto';
import { CommandError } from '../../cli/command.js';
import { TARGET_WAIT_MS, whenAvailable } from '../../cli/when-available.js';
import type { Settings } from '../../config/settings.js';
import type { Logger } from '../../logging/logger.js';
import { type AccountRole, parseAccountMapping } from '../../targets/account-mapping.js';
import type { ChartAccount } from '../../targets/quickbooks/account-types.js';
import { QboClient } from '../../targets/quickbooks/http-client.js';
import { RECONNECT } from '../../targets/quickbooks/index.js';
import { realmLimiter } from '../../targets/quickbooks/limiter.js';
import { mappingCode, planQuickBooksSetup } from '../../targets/quickbooks/setup-plan.js';
import { hasConflicts, toCreate } from '../../targets/setup/plan.js';
import { connectedCompany } from './oauth-connection.js';
import {
  openQuickBooksTarget,
  type QuickBooksSettings,
  quickBooksSettings,
} from './quickbooks-connection.js';
import { type SetupRead, settingsFile, type TargetSetup, written } from './target-setup.js';

// QuickBooks' setup: the connected company's chart of accounts (active accounts) read and planned under the
// mapping in force (setup-plan.ts); applied, each missing account created (one request id each, so a retried
// request creates it once) and named in the mapping by the code the directory looks it up by.

interface QuickBooksRead extends SetupRead {
  qbo: QuickBooksSettings;
  client: QboClient;
  chart: ChartAccount[];
}

async function readPlan(settings: Settings, logger: Logger): Promise<QuickBooksRead> {
  let qbo: QuickBooksSettings;
  let mapping: ReturnType<typeof parseAccountMapping>;
  try {
    qbo = quickBooksSettings(settings);
    mapping = parseAccountMapping(settings.TARGET_ACCOUNTS);
  } catch (error) {
    throw new CommandError((error as Error).message);
  }
  const close = async () => qbo.connection.close?.();
  try {
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
    return {
      plan: planQuickBooksSetup(chart, mapping),
      company: `QuickBooks company ${realmId}`,
      accounts: chart.length,
      ...settingsFile(settings),
      close,
      qbo,
      client,
      chart,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function apply(read: QuickBooksRead, { settings, logger, out }: Parameters<TargetSetup['apply']>[1]) {
  const { plan, client, chart, qbo, file, saved } = read;
  if (hasConflicts(plan)) throw new CommandError('a role conflicts: nothing is created until it is resolved');
  const created: Partial<Record<AccountRole, string>> = {};
  const chartAfter = [...chart];
  for (const step of toCreate(plan)) {
    // Another process's requests count in the same second and minute at QuickBooks (the plan's `targets
    // setup` just before, a worker): a throttled create is asked again, under the same requestid, once QBO
    // says, within the wait every target command has.
    const requestid = randomUUID();
    const account = await whenAvailable(() => client.write('Account', { ...step.fields }, { requestid }), {
      out,
      withinMs: TARGET_WAIT_MS,
    });
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
      const target = await openQuickBooksTarget({ settings, accounts, logger, qbo });
      await whenAvailable(() => target.verify(), { out, withinMs: TARGET_WAIT_MS });
    },
  });
}

export const quickBooksSetup: TargetSetup<QuickBooksRead> = { label: 'QuickBooks', readPlan, apply };
