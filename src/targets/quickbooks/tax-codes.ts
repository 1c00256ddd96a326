import { TargetRefusedError } from '../errors.js';
import type { Ref } from './accounts.js';
import type { QboClient, QboEntity } from './http-client.js';

// The sales tax code on every sales line booksync writes (QBO_TAX_CODE, `NON` by default). A US company on
// automated sales tax taxes a sales line sent without one ("The AST engine assigns the appropriate tax code to
// sales transaction objects and automatically calculates the tax amount", Intuit,
// https://developer.intuit.com/hub/blog/2017/12/11/using-quickbooks-online-api-automated-sales-tax/), and the
// line-level code of a US company is the pseudo code TAX or NON
// (https://developer.intuit.com/app/developer/qbo/docs/workflows/manage-sales-tax-for-us-locales): booksync's
// amounts are what the service charged, tax-free, so its lines say NON. The code goes in
// SalesItemLineDetail.TaxCodeRef (Finance.xsd ItemLineDetail.TaxCodeRef, "Reference to the SalesTaxCode for
// this item"). Named by Id or Name, read once from `select * from TaxCode` (a failed read, an outage, is
// not remembered), and held non-taxable at start-up.

export class SalesTaxCode {
  private codes: Promise<QboEntity[]> | null = null;

  private readonly client: QboClient;
  private readonly code: string;
  constructor(client: QboClient, code: string) {
    this.client = client;
    this.code = code;
  }

  /** The code's reference for a sales line; refused when the company has no such code. */
  async ref(): Promise<Ref> {
    const found = this.find(await this.list());
    if (!found)
      throw new TargetRefusedError('quickbooks', `no tax code ${this.code} in QuickBooks (QBO_TAX_CODE)`);
    return { value: found.Id };
  }

  /** One line when the code is missing, inactive or taxable (QuickBooks would add tax to booksync's lines). */
  async problems(): Promise<string[]> {
    this.codes = null;
    const codes = await this.list();
    const found = this.find(codes);
    const exempt = codes
      .filter((c) => c.Taxable !== true && c.Active !== false)
      .map((c) => String(c.Name ?? c.Id));
    const choose = exempt.length > 0 ? `; its non-taxable codes: ${exempt.join(', ')}` : '';
    if (!found) return [`QBO_TAX_CODE: no tax code ${this.code} in the QuickBooks company${choose}`];
    const name = `${this.code}${found.Name !== undefined && found.Name !== this.code ? ` (${String(found.Name)})` : ''}`;
    if (found.Active === false) return [`QBO_TAX_CODE: tax code ${name} is inactive in QuickBooks${choose}`];
    if (found.Taxable === true)
      return [
        `QBO_TAX_CODE: tax code ${name} is taxable: QuickBooks would add tax the service never charged${choose}`,
      ];
    return [];
  }

  private find(codes: QboEntity[]): QboEntity | null {
    return (
      codes.find((c) => c.Id === this.code) ??
      codes.find((c) => String(c.Name ?? '').toLowerCase() === this.code.toLowerCase()) ??
      null
    );
  }

  private list(): Promise<QboEntity[]> {
    if (!this.codes) {
      this.codes = this.client.selectPages('TaxCode', {}, 'Id');
      this.codes.catch(() => {
        this.codes = null;
      });
    }
    return this.codes;
  }
}
