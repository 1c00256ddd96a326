import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { describe, expect, it } from 'vitest';
import { TargetConfigurationError } from '../../../src/targets/errors.js';
import { TokenCipher } from '../../../src/targets/quickbooks/index.js';
import type { PushContext, TargetDocument } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { quickBooksCompany } from '../../support/quickbooks/company.js';
import { documentsForContract } from '../target-contract.js';

// QuickBooks: a company on automated sales tax adds tax to a sales line sent without a
// non-taxable tax code (the double does, as QBO's AST engine: packages/vendor-doubles/src/quickbooks/sales-tax.ts). booksync's
// lines carry QBO_TAX_CODE (NON by default), so what QuickBooks holds is the service's amount; a code the
// company does not have, or a taxable one, stops start-up (verify) with one line.

const double = doubleForFile(new QuickBooksDouble());
const cipher = new TokenCipher('test-secret-for-quickbooks-sales-tax');
const noIndex: PushContext = { mayExist: () => true, refusals: () => 0, pushed: () => null };
const ast = { realm: { automatedSalesTax: { ratePercent: 8.25 } } };

type Line = { Amount?: number; SalesItemLineDetail?: { TaxCodeRef?: { value?: string } } };
const linesOf = (entity: Record<string, unknown> | undefined) => (entity?.Line ?? []) as Line[];
const idOf = (remoteId: string | undefined) => String(remoteId?.split(':')[1]);

function sale(run: string, cents: number): TargetDocument {
  return {
    key: `sale:pay_${run}_s`,
    kind: 'sale',
    date: '2026-11-04',
    description: `Sale pay_${run}_s`,
    amountCents: cents,
    lines: [
      { role: 'ProcessorClearing', amountCents: cents },
      { role: 'Revenue', amountCents: -cents },
    ],
    contentHash: 'e'.repeat(64),
    reference: `pay_${run}_s`,
  };
}

describe('QuickBooks Online: sales tax', () => {
  it('an invoice and a sales receipt pushed to a company on automated sales tax carry no tax: totals are the service’s amounts', async () => {
    const { realmId, target } = quickBooksCompany(double, cipher, ast);
    const adapter = target();
    await adapter.verify();
    const docs = documentsForContract();
    const invoice = await adapter.push(docs.invoice, noIndex);
    const receipt = await adapter.push(sale(docs.run, 25_00), noIndex);

    const inQbo = double.get(realmId, 'Invoice', idOf(invoice.remoteIds[0]));
    expect(inQbo?.TxnTaxDetail).toBeUndefined();
    expect(inQbo?.TotalAmt).toBe(120);
    expect(inQbo?.Balance).toBe(120);
    expect(linesOf(inQbo).map((l) => l.SalesItemLineDetail?.TaxCodeRef)).toEqual([{ value: 'NON' }]);

    const receiptInQbo = double.get(realmId, 'SalesReceipt', idOf(receipt.remoteIds[0]));
    expect(receiptInQbo?.TxnTaxDetail).toBeUndefined();
    expect(receiptInQbo?.TotalAmt).toBe(25);
    expect(linesOf(receiptInQbo).map((l) => l.SalesItemLineDetail?.TaxCodeRef)).toEqual([{ value: 'NON' }]);

    // Nothing owed to the tax agency: the company's sales tax liability holds nothing of booksync's.
    expect(double.salesTaxOwed(realmId)).toBe(0);
  });

  it('verify() refuses a tax code the company does not have, and a taxable one, with one line each', async () => {
    const unknown = quickBooksCompany(double, cipher, { ...ast, taxCode: 'EXEMPT' }).target();
    const refusal = await unknown.verify().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(TargetConfigurationError);
    expect((refusal as TargetConfigurationError).problems).toEqual([
      'QBO_TAX_CODE: no tax code EXEMPT in the QuickBooks company; its non-taxable codes: NON',
    ]);

    const taxable = quickBooksCompany(double, cipher, { taxCode: 'TAX' }).target();
    await expect(taxable.verify()).rejects.toThrow(
      /QBO_TAX_CODE: tax code TAX is taxable: QuickBooks would add tax the service never charged/,
    );
    // A code named by its name is found as by its Id.
    await quickBooksCompany(double, cipher, { taxCode: 'non' }).target().verify();
  });
});
