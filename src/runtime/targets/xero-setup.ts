import type { Account } from 'xero-node';
import { CommandError } from '../../cli/command.js';
import { TARGET_WAIT_MS, whenAvailable } from '../../cli/when-available.js';
import { durationMs } from '../../config/setting-types.js';
import type { Settings } from '../../config/settings.js';
import type { Logger } from '../../logging/logger.js';
import { type AccountRole, parseAccountMapping } from '../../targets/account-mapping.js';
import { TargetDisconnectedError } from '../../targets/errors.js';
import { hasConflicts, toCreate } from '../../targets/setup/plan.js';
import { chartAccountOf } from '../../targets/xero/accounts.js';
import { XERO_RECONNECT, XeroClient, xeroLimiter } from '../../targets/xero/index.js';
import { idempotencyKey } from '../../targets/xero/keys.js';
import { planXeroSetup } from '../../targets/xero/setup-plan.js';
import { connectedCompany } from './oauth-connection.js';
import { type SetupRead, settingsFile, type TargetSetup, written } from './target-setup.js';
import { openXeroTarget, type XeroSettings, xeroSettings } from './xero-connection.js';

// Xero's setup: the connected organisation's chart of accounts read (GET Accounts) and planned under the
// mapping in force (src/targets/xero/setup-plan.ts); applied, each missing account created (PUT Accounts, an
// Idempotency-Key from the organisation, the role and the account, so a retried request creates it once)
// and named in the mapping by its Code. Creating accounts needs the connection's `accounting.settings` scope,
// which booksync's default scopes ask; a connection narrowed to `accounting.settings.read` plans only.

interface XeroRead extends SetupRead {
  xero: XeroSettings;
  client: XeroClient;
}

/** What to do when the connection may read the chart but not create accounts. */
export const SETTINGS_SCOPE_HINT =
  "creating accounts needs Xero's accounting.settings scope: connect again with it (booksync's default scopes, or XERO_SCOPES holding accounting.settings; booksync targets connect xero), or create the accounts in Xero and run this again";

async function readPlan(settings: Settings, logger: Logger): Promise<XeroRead> {
  let xero: XeroSettings;
  let mapping: ReturnType<typeof parseAccountMapping>;
  try {
    xero = xeroSettings(settings);
    mapping = parseAccountMapping(settings.TARGET_ACCOUNTS);
  } catch (error) {
    throw new CommandError((error as Error).message);
  }
  const close = async () => xero.connection.close?.();
  try {
    const tenantId = await connectedCompany(
      settings.XERO_TENANT_ID,
      xero.connection,
      'xero',
      `not connected to a Xero organisation: ${XERO_RECONNECT}`,
    );
    const client = new XeroClient({
      baseUrl: settings.XERO_BASE_URL,
      tenantId,
      tokens: xero.tokenStore(tenantId, logger),
      limiter: xeroLimiter(tenantId, logger, durationMs(settings.XERO_RATE_WINDOW)),
      logger,
    });
    const body = await client.call('getAccounts', (api, t) => api.getAccounts(t));
    const chart = (body.accounts ?? []).map(chartAccountOf);
    return {
      plan: planXeroSetup(chart, mapping),
      company: `Xero organisation ${tenantId}`,
      accounts: chart.length,
      ...settingsFile(settings),
      close,
      xero,
      client,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The SDK's Account for a planned step's fields (Xero's names: Code, Name, Type, ...). */
function accountOf(fields: Readonly<Record<string, string>>): Account {
  return {
    code: fields.Code,
    name: fields.Name as string,
    type: fields.Type as Account['type'],
    ...(fields.BankAccountNumber ? { bankAccountNumber: fields.BankAccountNumber } : {}),
    ...(fields.EnablePaymentsToAccount === 'true' ? { enablePaymentsToAccount: true } : {}),
  };
}

async function apply(read: XeroRead, { settings, logger, out }: Parameters<TargetSetup['apply']>[1]) {
  const { plan, client, xero, file, saved } = read;
  if (hasConflicts(plan)) throw new CommandError('a role conflicts: nothing is created until it is resolved');
  const created: Partial<Record<AccountRole, string>> = {};
  for (const step of toCreate(plan)) {
    const account = accountOf(step.fields);
    try {
      // A throttled or lost create (a 429 after the plan's own requests spent the minute, a 502) is asked
      // again under the same Idempotency-Key, so Xero answers it with the account it made, once.
      const body = await whenAvailable(
        () =>
          client.call('createAccount', (api, t) =>
            api.createAccount(t, account, idempotencyKey(t, `account:${step.role}`, 'create', account)),
          ),
        { out, withinMs: TARGET_WAIT_MS },
      );
      const code = body.accounts?.[0]?.code ?? account.code;
      if (!code) throw new CommandError(`${step.role}: Xero answered the new account without its code`);
      created[step.role] = code;
      out(`created ${step.name} (${step.type})`);
    } catch (error) {
      if (error instanceof TargetDisconnectedError && /scope/.test(error.message)) {
        out(`Xero refused to create ${step.name}: ${SETTINGS_SCOPE_HINT}`);
        return 1;
      }
      throw error;
    }
  }
  return written(plan, created, {
    settings,
    file,
    saved,
    out,
    verify: async (accounts) => {
      const target = await openXeroTarget({ settings, accounts, logger, xero });
      await whenAvailable(() => target.verify(), { out, withinMs: TARGET_WAIT_MS });
    },
  });
}

export const xeroSetup: TargetSetup<XeroRead> = { label: 'Xero', readPlan, apply };
