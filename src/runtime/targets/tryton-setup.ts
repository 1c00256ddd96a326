import { CommandError } from '../../cli/command.js';
import type { Settings } from '../../config/settings.js';
import type { Logger } from '../../logging/logger.js';
import { type AccountRole, parseAccountMapping } from '../../targets/account-mapping.js';
import { hasConflicts, toCreate } from '../../targets/setup/plan.js';
import { readAccountTypes, readChartAccounts } from '../../targets/tryton/account-types.js';
import { createTrytonTarget } from '../../targets/tryton/index.js';
import { TrytonRpc } from '../../targets/tryton/json-rpc.js';
import { accountValues, planTrytonSetup, type TrytonSetupPlan } from '../../targets/tryton/setup-plan.js';
import { type SetupRead, settingsFile, type TargetSetup, written } from './target-setup.js';

// Tryton's setup: the company's chart of accounts and account types read over JSON-RPC as TRYTON_USER and
// planned under the mapping in force (src/targets/tryton/setup-plan.ts), with the journals (REV, EXP, MISC)
// and the invoice payment term booksync's documents use; applied, the missing accounts created in one call
// (Tryton creates them all or none), the missing journals and a payment term too, the mapping written and
// checked by the Tryton target's verify().

/** The journals booksync's documents go to (customer invoices, supplier invoices, moves), as Tryton names them. */
export const trytonJournals = [
  { code: 'REV', name: 'Revenue', type: 'revenue' },
  { code: 'EXP', name: 'Expense', type: 'expense' },
  { code: 'MISC', name: 'Miscellaneous', type: 'general' },
] as const;

/** The payment term created when the company has none: the whole amount due on the invoice's payment date. */
const paymentTerm = { name: 'Due on receipt', lines: [['create', [{ type: 'remainder' }]]] };

export interface TrytonRead extends SetupRead {
  plan: TrytonSetupPlan;
  rpc: TrytonRpc;
  connection: { url: string; database: string; username: string; password: string };
  /** The journals booksync needs that Tryton lacks. */
  missingJournals: (typeof trytonJournals)[number][];
  /** The payment term to create when Tryton has none, else null. */
  missingPaymentTerm: string | null;
}

async function readPlan(settings: Settings, _logger: Logger): Promise<TrytonRead> {
  const { TRYTON_URL: url, TRYTON_DATABASE: database, TRYTON_PASSWORD: password } = settings;
  if (!url || !database || !password)
    throw new CommandError('Tryton: set TRYTON_URL, TRYTON_DATABASE and TRYTON_PASSWORD');
  let mapping: ReturnType<typeof parseAccountMapping>;
  try {
    mapping = parseAccountMapping(settings.TARGET_ACCOUNTS);
  } catch (error) {
    throw new CommandError((error as Error).message);
  }
  const connection = { url, database, username: settings.TRYTON_USER, password };
  const rpc = new TrytonRpc(connection);
  const types = await readAccountTypes(rpc);
  const accounts = await readChartAccounts(rpc, [], types);
  const present = await rpc.searchRead<{ code: string }>(
    'account.journal',
    [['code', 'in', trytonJournals.map((j) => j.code)]],
    ['code'],
  );
  const terms = await rpc.model<number[]>('account.invoice.payment_term', 'search', [], 0, 1, null);
  return {
    plan: planTrytonSetup({ accounts, types }, mapping),
    company: `Tryton database ${database} at ${url}`,
    accounts: accounts.length,
    ...settingsFile(settings),
    close: async () => {},
    rpc,
    connection,
    missingJournals: trytonJournals.filter((j) => !present.some((p) => p.code === j.code)),
    missingPaymentTerm: terms.length === 0 ? paymentTerm.name : null,
  };
}

async function apply(read: TrytonRead, { settings, logger, out }: Parameters<TargetSetup['apply']>[1]) {
  const { plan, rpc, file, saved, connection } = read;
  if (hasConflicts(plan) || plan.problems.length > 0)
    throw new CommandError('a role conflicts: nothing is created until it is resolved');
  const created: Partial<Record<AccountRole, string>> = {};
  const missing = toCreate(plan);
  if (missing.length > 0) {
    const ids = await rpc.model<number[]>(
      'account.account',
      'create',
      missing.map((step) => accountValues(step.fields)),
    );
    missing.forEach((step, i) => {
      created[step.role] = step.fields.code as string;
      out(`created ${step.name} (${step.type}), id ${ids[i]}`);
    });
  }
  if (read.missingJournals.length > 0) {
    await rpc.model(
      'account.journal',
      'create',
      read.missingJournals.map(({ code, name, type }) => ({ code, name, type })),
    );
    for (const j of read.missingJournals) out(`created journal ${j.code} (${j.name}, type ${j.type})`);
  }
  if (read.missingPaymentTerm) {
    await rpc.model('account.invoice.payment_term', 'create', [paymentTerm]);
    out(`created payment term ${paymentTerm.name}`);
  }
  return written(plan, created, {
    settings,
    file,
    saved,
    out,
    verify: async (accounts) => {
      const target = createTrytonTarget({
        ...connection,
        accounts,
        matching: settings.TARGET_MATCHING,
        logger,
      });
      await target.verify();
    },
  });
}

export const trytonSetup: TargetSetup<TrytonRead> = { label: 'Tryton', readPlan, apply };
