import { TargetRefusedError } from '../errors.js';
import type { XeroClient } from './client.js';

// The TaxType on the lines booksync writes to Xero (XERO_TAX_TYPE, else the organisation's own no-tax rate).
// booksync's amounts are what the service charged, with no tax in them: a line's TaxType is one of the
// organisation's TaxRates (GET /TaxRates, xero_accounting.yaml `getTaxRates`: TaxType, Name, Status,
// EffectiveRate, CanApplyToRevenue / CanApplyToExpenses; https://developer.xero.com/documentation/api/accounting/taxrates),
// and Xero refuses a line whose TaxType it does not have ("The TaxType code … does not exist or cannot be used
// for this type of transaction.", XeroAPI/Xero-Java#336). Without the setting the rate is the active 0 % one
// that applies to revenue and expenses, TaxType NONE first (Xero's "No GST" / "Tax Exempt"), then one named
// so. Read once (a failed read, an outage, is not remembered); held at start-up like the accounts.

export interface XeroTaxRate {
  taxType: string;
  name: string;
  status: string;
  effectiveRate: number;
  revenue: boolean;
  expenses: boolean;
}

const NO_TAX_NAME = /\bno (gst|vat|tax)\b|\bexempt\b|\bno tax\b/i;

/** The no-tax rate among the organisation's: active, 0 %, for revenue and expenses; NONE, then by name. */
export function noTaxRate(rates: readonly XeroTaxRate[]): XeroTaxRate | null {
  const zero = rates.filter((r) => r.status === 'ACTIVE' && r.effectiveRate === 0 && r.revenue && r.expenses);
  return (
    zero.find((r) => r.taxType === 'NONE') ?? zero.find((r) => NO_TAX_NAME.test(r.name)) ?? zero[0] ?? null
  );
}

// biome-ignore lint/suspicious/noExplicitAny: the SDK's models, built and read as plain objects
type Body = Record<string, any>;

/**
 * A body's lines in the tax type: lines sent tax-exclusive, each with its TaxType (a 0 % rate adds nothing, so
 * the total is the service's amount). A body that says its own LineAmountTypes (a manual journal, an
 * overpayment, whose lines name no revenue or expense account) is left NoTax as it is.
 */
export function withTaxType(body: Body, taxType: string): Body {
  if (!Array.isArray(body.lineItems) || body.lineAmountTypes !== undefined) return body;
  return {
    ...body,
    lineAmountTypes: 'Exclusive',
    lineItems: body.lineItems.map((line: Body) => ({ ...line, taxType })),
  };
}

export class TaxTypeDirectory {
  private rates: Promise<XeroTaxRate[]> | null = null;

  private readonly client: XeroClient;
  private readonly configured?: string;
  constructor(client: XeroClient, configured?: string) {
    this.client = client;
    this.configured = configured;
  }

  /** The tax type of booksync's lines; refused when the organisation has none that fits. */
  async taxType(): Promise<string> {
    const rate = this.choose(await this.all());
    if (!rate)
      throw new TargetRefusedError(
        'xero',
        this.configured
          ? `no tax rate ${this.configured} in Xero (XERO_TAX_TYPE)`
          : 'no 0 % tax rate in Xero for booksync’s lines: set XERO_TAX_TYPE',
      );
    return rate.taxType;
  }

  /** One line when the tax type is unknown, archived or taxed, or when no no-tax rate can be derived. */
  async problems(): Promise<string[]> {
    this.rates = null;
    const rates = await this.all();
    const zero = rates
      .filter((r) => r.status === 'ACTIVE' && r.effectiveRate === 0)
      .map((r) => `${r.taxType} (${r.name})`);
    const choose = zero.length > 0 ? `; its 0 % rates: ${zero.join(', ')}` : '';
    if (!this.configured) {
      return noTaxRate(rates)
        ? []
        : [
            `XERO_TAX_TYPE: the Xero organisation has no active 0 % tax rate for revenue and expenses${choose}`,
          ];
    }
    const rate = this.choose(rates);
    if (!rate)
      return [`XERO_TAX_TYPE: no tax rate of TaxType ${this.configured} in the Xero organisation${choose}`];
    const name = `${rate.taxType} (${rate.name})`;
    if (rate.status !== 'ACTIVE')
      return [`XERO_TAX_TYPE: tax rate ${name} is ${rate.status} in Xero${choose}`];
    if (rate.effectiveRate !== 0)
      return [
        `XERO_TAX_TYPE: tax rate ${name} is ${rate.effectiveRate} %: Xero would add tax the service never charged${choose}`,
      ];
    if (!rate.revenue || !rate.expenses)
      return [
        `XERO_TAX_TYPE: tax rate ${name} cannot be used on both revenue and expense lines (booksync writes both)${choose}`,
      ];
    return [];
  }

  private choose(rates: XeroTaxRate[]): XeroTaxRate | null {
    if (!this.configured) return noTaxRate(rates);
    return rates.find((r) => r.taxType === this.configured) ?? null;
  }

  private all(): Promise<XeroTaxRate[]> {
    this.rates ??= this.client
      .call('getTaxRates', (api, tenant) => api.getTaxRates(tenant))
      .then((body) =>
        (body.taxRates ?? []).flatMap((r) =>
          r.taxType
            ? [
                {
                  taxType: r.taxType,
                  name: r.name ?? '',
                  status: String(r.status ?? ''),
                  effectiveRate: Number(r.effectiveRate ?? 0),
                  revenue: r.canApplyToRevenue === true,
                  expenses: r.canApplyToExpenses === true,
                },
              ]
            : [],
        ),
      );
    this.rates.catch(() => {
      this.rates = null;
    });
    return this.rates;
  }
}
