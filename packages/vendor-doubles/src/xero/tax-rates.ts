// An organisation's tax rates as the double holds them (README.md, rule `known-tax-type`): `GET /TaxRates`
// answers them (xero_accounting.yaml `getTaxRates`, its 200 example: TaxType, Name, Status, EffectiveRate,
// CanApplyTo…; https://developer.xero.com/documentation/api/accounting/taxrates), and a line whose TaxType is
// not an active rate of the organisation, or one its account's class may not take, is refused with Xero's
// words ("The TaxType code GST on Income does not exist or cannot be used for this type of transaction.",
// "The TaxType code 'GST on Income' cannot be used with account code '60410'.": Xero's ValidationErrors as
// XeroAPI/Xero-Java#336 printed them). The default rates are the document's own example (an NZ organisation:
// 15 % GST on income and expenses, No GST `NONE`, Zero Rated, GST on Imports).

type Doc = Record<string, unknown>;

const rate = (
  Name: string,
  TaxType: string,
  ReportTaxType: string,
  percent: number,
  applies: { assets: boolean; equity: boolean; expenses: boolean; liabilities: boolean; revenue: boolean },
): Doc => ({
  Name,
  TaxType,
  ReportTaxType,
  CanApplyToAssets: applies.assets,
  CanApplyToEquity: applies.equity,
  CanApplyToExpenses: applies.expenses,
  CanApplyToLiabilities: applies.liabilities,
  CanApplyToRevenue: applies.revenue,
  DisplayTaxRate: percent,
  EffectiveRate: percent,
  Status: 'ACTIVE',
  TaxComponents: [{ Name: 'GST', Rate: percent, IsCompound: false, IsNonRecoverable: false }],
});

const all = { assets: true, equity: true, expenses: true, liabilities: true, revenue: true };

/** xero_accounting.yaml's example TaxRates, an organisation's rates when a test gives none. */
export function exampleTaxRates(): Doc[] {
  return [
    rate('15% GST on Expenses', 'INPUT2', 'INPUT', 15, { ...all, revenue: false }),
    rate('15% GST on Income', 'OUTPUT2', 'OUTPUT', 15, { ...all, expenses: false }),
    rate('GST on Imports', 'GSTONIMPORTS', 'GSTONIMPORTS', 0, {
      assets: false,
      equity: false,
      expenses: false,
      liabilities: true,
      revenue: false,
    }),
    rate('No GST', 'NONE', 'NONE', 0, all),
    rate('Zero Rated', 'ZERORATED', 'OUTPUT', 0, {
      assets: false,
      equity: false,
      expenses: false,
      liabilities: true,
      revenue: true,
    }),
  ];
}

/** A rate of the organisation's own (a US organisation's "Tax Exempt", a custom `TAX001`), all classes. */
export function taxRate(name: string, taxType: string, percent: number): Doc {
  return rate(name, taxType, percent === 0 ? 'NONE' : 'OUTPUT', percent, all);
}

const classFlag: Record<string, string> = {
  ASSET: 'CanApplyToAssets',
  EQUITY: 'CanApplyToEquity',
  EXPENSE: 'CanApplyToExpenses',
  LIABILITY: 'CanApplyToLiabilities',
  REVENUE: 'CanApplyToRevenue',
};

/**
 * Xero's refusals of a line's TaxType: none when the line names none (Xero takes the account's default) or an
 * active rate of the organisation its account's class may take.
 */
export function taxTypeRefusals(rates: readonly Doc[], taxType: unknown, account: Doc | null): string[] {
  if (taxType === undefined) return [];
  const found = rates.find((r) => r.TaxType === taxType && r.Status === 'ACTIVE');
  if (!found)
    return [
      `The TaxType code ${String(taxType)} does not exist or cannot be used for this type of transaction.`,
    ];
  const flag = account ? classFlag[String(account.Class)] : undefined;
  if (flag && found[flag] !== true)
    return [
      `The TaxType code '${String(taxType)}' cannot be used with account code '${String(account?.Code)}'.`,
    ];
  return [];
}
