// Xero's OAuth 2.0 scopes as the double holds them (README, "Scopes"): the scope each Accounting API operation
// the double serves needs, the granular scopes of apps created on or after 2 March 2026 and the broad ones only
// older apps may still request (https://developer.xero.com/faq/granular-scopes), and whether a token's scopes
// let it call an operation. xero_accounting.yaml still names the broad scopes on every operation, so the table
// is written here from Xero's scopes pages, not read from the contract.

/** The day Xero's granular scopes became the only ones a new app may request. */
export const GRANULAR_SINCE = '2026-03-02';

/** Scopes with a write variant and a `.read` one (GET only). */
const families = [
  'accounting.invoices',
  'accounting.payments',
  'accounting.banktransactions',
  'accounting.manualjournals',
  'accounting.contacts',
  'accounting.settings',
  'accounting.attachments',
] as const;

/** The report scopes: read only. */
const reports = [
  'accounting.reports.aged.read',
  'accounting.reports.balancesheet.read',
  'accounting.reports.banksummary.read',
  'accounting.reports.budgetsummary.read',
  'accounting.reports.executivesummary.read',
  'accounting.reports.profitandloss.read',
  'accounting.reports.taxreports.read',
  'accounting.reports.trialbalance.read',
] as const;

const identity = ['offline_access', 'openid', 'profile', 'email'];

/** The broad scopes new apps may no longer request, and the granular scopes each stood for. */
const broad: Record<string, readonly string[]> = {
  'accounting.transactions': [
    'accounting.invoices',
    'accounting.payments',
    'accounting.banktransactions',
    'accounting.manualjournals',
  ],
  'accounting.transactions.read': [
    'accounting.invoices.read',
    'accounting.payments.read',
    'accounting.banktransactions.read',
    'accounting.manualjournals.read',
  ],
  'accounting.reports.read': reports,
};

/** Every granular accounting scope, write variants (what `authorize()` / `connect()` grant by default). */
export const everyGranularScope: readonly string[] = ['offline_access', ...families, ...reports];

const granular = new Set([...identity, ...families, ...families.map((f) => `${f}.read`), ...reports]);

/**
 * The scope each operation the double serves needs: a family (its `.read` variant is enough for a GET), or a
 * report's read scope. Credit notes and their allocations are the invoices' scope, overpayments the payments',
 * bank transfers (and their History & Notes) the bank transactions'.
 */
export const operationScopes: Readonly<Record<string, string>> = {
  getAccounts: 'accounting.settings',
  // PUT /Accounts: xero_accounting.yaml gives it accounting.settings only (no .read variant writes).
  createAccount: 'accounting.settings',
  getOrganisations: 'accounting.settings',
  getTaxRates: 'accounting.settings',
  getContacts: 'accounting.contacts',
  getContact: 'accounting.contacts',
  getContactByContactNumber: 'accounting.contacts',
  createContacts: 'accounting.contacts',
  getInvoices: 'accounting.invoices',
  getInvoice: 'accounting.invoices',
  createInvoices: 'accounting.invoices',
  updateInvoice: 'accounting.invoices',
  getCreditNotes: 'accounting.invoices',
  getCreditNote: 'accounting.invoices',
  createCreditNotes: 'accounting.invoices',
  updateCreditNote: 'accounting.invoices',
  createCreditNoteAllocation: 'accounting.invoices',
  getPayments: 'accounting.payments',
  getPayment: 'accounting.payments',
  createPayments: 'accounting.payments',
  createPayment: 'accounting.payments',
  deletePayment: 'accounting.payments',
  getOverpayments: 'accounting.payments',
  getOverpayment: 'accounting.payments',
  createOverpaymentAllocations: 'accounting.payments',
  deleteOverpaymentAllocations: 'accounting.payments',
  getBankTransactions: 'accounting.banktransactions',
  getBankTransaction: 'accounting.banktransactions',
  createBankTransactions: 'accounting.banktransactions',
  updateBankTransaction: 'accounting.banktransactions',
  getBankTransfers: 'accounting.banktransactions',
  getBankTransfer: 'accounting.banktransactions',
  createBankTransfer: 'accounting.banktransactions',
  deleteBankTransfer: 'accounting.banktransactions',
  getBankTransferHistory: 'accounting.banktransactions',
  createBankTransferHistoryRecord: 'accounting.banktransactions',
  getManualJournals: 'accounting.manualjournals',
  getManualJournal: 'accounting.manualjournals',
  createManualJournals: 'accounting.manualjournals',
  updateManualJournal: 'accounting.manualjournals',
  getReportTrialBalance: 'accounting.reports.trialbalance.read',
  getReportAgedReceivablesByContact: 'accounting.reports.aged.read',
  getReportAgedPayablesByContact: 'accounting.reports.aged.read',
};

/** The granular scopes a set of granted scopes stands for (broad ones expanded). */
function expanded(granted: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const scope of granted) {
    out.add(scope);
    for (const covered of broad[scope] ?? []) out.add(covered);
  }
  return out;
}

/** The scope `operation` needs when `granted` lacks it (null: allowed, or an operation without a scope here). */
export function missingScope(granted: Iterable<string>, operation: string, method: string): string | null {
  const needed = operationScopes[operation];
  if (!needed) return null;
  const has = expanded(granted);
  if (has.has(needed)) return null;
  if (method === 'GET' && !needed.endsWith('.read') && has.has(`${needed}.read`)) return null;
  return needed;
}

/**
 * The scopes the consent page refuses (`invalid_scope`): one Xero does not know, or a broad one asked by an app
 * created on or after 2 March 2026 (older apps may mix broad and granular until September 2027).
 */
export function refusedScopes(requested: string[], appCreatedOn: string): string[] {
  const older = appCreatedOn < GRANULAR_SINCE;
  return requested.filter((scope) => !granular.has(scope) && !(older && scope in broad));
}
