// QuickBooks Online's US sales tax as the double holds it (README.md, rule `automated-sales-tax`):
// - every US company has the line-level pseudo tax codes TAX (taxable) and NON (non-taxable), served by
//   `select * from TaxCode` ("the taxable status of each line is noted as either TAX or NON … referred to as
//   pseudo tax codes", Intuit's "Manage sales tax for US locales",
//   https://developer.intuit.com/app/developer/qbo/docs/workflows/manage-sales-tax-for-us-locales);
// - a company on automated sales tax (AST; Preferences.TaxPrefs.PartnerTaxEnabled, "If true, automated sales
//   tax is enabled for the company and sales tax is set up (UsingSalesTax=true)", same page) taxes its sales
//   transactions itself: "The AST engine assigns the appropriate tax code to sales transaction objects and
//   automatically calculates the tax amount" (Intuit's "Using QuickBooks Online API for automated sales tax",
//   https://developer.intuit.com/hub/blog/2017/12/11/using-quickbooks-online-api-automated-sales-tax/). The
//   double taxes a sales line sent without a TaxCodeRef (it becomes TAX) or with a taxable code, at the
//   company's one rate, into TxnTaxDetail (TxnTaxCodeRef: the AST code, TotalTax); a line sent NON is not
//   taxed. TotalAmt is the lines plus the tax, and the tax is posted to the Sales Tax Payable liability.
// Sandbox companies do not run AST (Intuit's page above), so no sandbox test can check this rule.

type Entity = Record<string, unknown>;

/** The company's AST engine: one rate (basis points: 825 = 8.25 %), its tax code and its liability account. */
export interface AutomatedSalesTax {
  basisPoints: number;
  taxCodeId: string;
  accountId: string;
}

/** The pseudo codes of a US company, with Id = Name and no Active flag, as QBO answers them. */
export const pseudoTaxCodes: Entity[] = [
  { Id: 'TAX', Name: 'TAX', Description: 'TAX', Taxable: true, TaxGroup: false },
  { Id: 'NON', Name: 'NON', Description: 'NON', Taxable: false, TaxGroup: false },
];

/** The AST company's own tax code (a group of rates in QBO; one rate here), and its payable account. */
export const astTaxCode: Entity = {
  Name: 'AST California',
  Description: 'Automated sales tax',
  Active: true,
  Taxable: true,
  TaxGroup: true,
};
export const salesTaxPayable: Entity = {
  Name: 'Board of Equalization Payable',
  AccountType: 'Other Current Liability',
  AccountSubType: 'SalesTaxPayable',
  Active: true,
};

/** The sales transactions AST taxes (sales forms whose lines are SalesItemLineDetail). */
export const taxedEntities = new Set(['Invoice', 'SalesReceipt', 'RefundReceipt', 'CreditMemo']);

const refValue = (ref: unknown): string => String((ref as { value?: unknown } | undefined)?.value ?? '');
const cents = (amount: unknown): number => Math.round(Number(amount) * 100);

/**
 * AST on a sales transaction's body, in place: each sales line's TaxCodeRef (TAX where none was sent), the
 * tax on the taxable lines at the company's rate (half up, in cents) in TxnTaxDetail. `taxable(code)` says
 * whether a code taxes (TAX, or a code whose Taxable is true).
 */
export function applyAutomatedSalesTax(
  body: Entity,
  ast: AutomatedSalesTax,
  taxable: (code: string) => boolean,
): void {
  let taxableCents = 0;
  for (const line of (body.Line as Entity[] | undefined) ?? []) {
    const detail = line.SalesItemLineDetail as Entity | undefined;
    if (!detail) continue;
    if (detail.TaxCodeRef === undefined) detail.TaxCodeRef = { value: 'TAX' };
    if (taxable(refValue(detail.TaxCodeRef))) taxableCents += cents(line.Amount);
  }
  const tax = Math.round((taxableCents * ast.basisPoints) / 10_000);
  if (tax === 0) return;
  body.TxnTaxDetail = { TxnTaxCodeRef: { value: ast.taxCodeId }, TotalTax: tax / 100 };
}

/** The tax a sales transaction carries, in cents (0 without TxnTaxDetail). */
export function taxOf(body: Entity): number {
  return cents((body.TxnTaxDetail as Entity | undefined)?.TotalTax ?? 0);
}
