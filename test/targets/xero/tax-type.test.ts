import { type TenantOptions, XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { exampleTaxRates, taxRate } from '@booksync/vendor-doubles/xero/tax-rates';
import { describe, expect, it } from 'vitest';
import { TargetConfigurationError, TargetRefusedError } from '../../../src/targets/errors.js';
import { TokenCipher } from '../../../src/targets/oauth/token-cipher.js';
import type { PushContext, TargetDocument } from '../../../src/targets/target-port.js';
import type { XeroTarget } from '../../../src/targets/xero/index.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { xeroOrganisation } from '../../support/xero/organisation.js';
import { documentsForContract } from '../target-contract.js';

// Xero: booksync's lines carry a TaxType of the organisation's (XERO_TAX_TYPE, else its no-tax
// rate read from GET TaxRates), sent tax-exclusive, instead of a hard-coded NoTax; a type Xero does not have,
// or a taxed one, stops start-up (verify) with one line. The double serves TaxRates and refuses a line whose
// TaxType the organisation does not have, with Xero's ValidationException (packages/vendor-doubles/src/xero/tax-rates.ts).

const double = doubleForFile(
  new XeroDouble({ limits: { concurrent: 5, perMinute: 60, perDay: 5_000, windowMs: 1_000 } }),
);
const cipher = new TokenCipher('test-secret-for-xero-tax-types');
const noIndex: PushContext = { mayExist: () => true, refusals: () => 0, pushed: () => null };

function organisation(options: { tenant?: TenantOptions; taxType?: string } = {}) {
  const org = xeroOrganisation(double, cipher, options);
  return { tenantId: org.tenantId, target: org.target() };
}

const idOf = (remoteId: string | undefined) => String(remoteId?.split(':')[1]);
type Line = { TaxType?: string; TaxAmount?: number };
const taxTypesOf = (doc: Record<string, unknown> | undefined) =>
  ((doc?.LineItems ?? []) as Line[]).map((l) => l.TaxType);

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
    contentHash: 'f'.repeat(64),
    reference: `pay_${run}_s`,
  };
}

async function verifyProblems(target: XeroTarget): Promise<readonly string[]> {
  const error = await target.verify().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TargetConfigurationError);
  return (error as TargetConfigurationError).problems;
}

describe('Xero: the tax type of booksync’s lines', { timeout: 60_000 }, () => {
  it('derives the organisation’s no-tax rate from its TaxRates: lines carry it, totals are the service’s amounts', async () => {
    const { tenantId, target } = organisation();
    await target.verify();
    const docs = documentsForContract();
    const invoice = await target.push(docs.invoice, noIndex);
    const receipt = await target.push(sale(docs.run, 25_00), noIndex);

    const inXero = double.get(tenantId, 'Invoices', idOf(invoice.remoteIds[0]));
    expect(taxTypesOf(inXero)).toEqual(['NONE']);
    expect(inXero?.LineAmountTypes).toBe('Exclusive');
    expect([inXero?.TotalTax, inXero?.Total, inXero?.AmountDue]).toEqual([0, 120, 120]);
    const received = double.get(tenantId, 'BankTransactions', idOf(receipt.remoteIds[0]));
    expect(taxTypesOf(received)).toEqual(['NONE']);
    expect(received?.Total).toBe(25);
  });

  it('derives a no-tax rate by name where NONE is not one (a US organisation’s Tax Exempt)', async () => {
    const us = { taxRates: [taxRate('Sales Tax', 'TAX001', 8.25), taxRate('Tax Exempt', 'TAX002', 0)] };
    const { tenantId, target } = organisation({ tenant: us });
    await target.verify();
    const docs = documentsForContract();
    const invoice = await target.push(docs.invoice, noIndex);
    expect(taxTypesOf(double.get(tenantId, 'Invoices', idOf(invoice.remoteIds[0])))).toEqual(['TAX002']);
  });

  it('puts the configured tax type (XERO_TAX_TYPE) on every line', async () => {
    const rates = [...exampleTaxRates(), taxRate('Exempt supplies', 'EXEMPTOUTPUT', 0)];
    const { tenantId, target } = organisation({ tenant: { taxRates: rates }, taxType: 'EXEMPTOUTPUT' });
    await target.verify();
    const docs = documentsForContract();
    const invoice = await target.push(docs.invoice, noIndex);
    expect(taxTypesOf(double.get(tenantId, 'Invoices', idOf(invoice.remoteIds[0])))).toEqual([
      'EXEMPTOUTPUT',
    ]);
  });

  it('verify() refuses a tax type Xero does not have, a taxed one, and one not for revenue and expenses', async () => {
    expect(await verifyProblems(organisation({ taxType: 'BOGUS' }).target)).toEqual([
      'XERO_TAX_TYPE: no tax rate of TaxType BOGUS in the Xero organisation; its 0 % rates: GSTONIMPORTS (GST on Imports), NONE (No GST), ZERORATED (Zero Rated)',
    ]);
    expect(await verifyProblems(organisation({ taxType: 'OUTPUT2' }).target)).toEqual([
      expect.stringMatching(
        /^XERO_TAX_TYPE: tax rate OUTPUT2 \(15% GST on Income\) is 15 %: Xero would add tax/,
      ),
    ]);
    expect(await verifyProblems(organisation({ taxType: 'ZERORATED' }).target)).toEqual([
      expect.stringMatching(
        /^XERO_TAX_TYPE: tax rate ZERORATED \(Zero Rated\) cannot be used on both revenue and expense lines/,
      ),
    ]);
    // No rate to derive: start-up says so rather than let Xero refuse every line.
    const taxedOnly = { taxRates: [taxRate('Sales Tax', 'TAX001', 8.25)] };
    expect(await verifyProblems(organisation({ tenant: taxedOnly }).target)).toEqual([
      'XERO_TAX_TYPE: the Xero organisation has no active 0 % tax rate for revenue and expenses',
    ]);
  });

  it('a push with a tax type the organisation lacks (start-up not verified) is refused, FAILED, not sent', async () => {
    // The double's own refusal of such a line, Xero's ValidationException: rules.test.ts, known-tax-type.
    const { target } = organisation({ taxType: 'BOGUS' });
    const refused = await target.push(documentsForContract().invoice, noIndex).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(TargetRefusedError);
    expect((refused as TargetRefusedError).targetMessage).toMatch(
      /no tax rate BOGUS in Xero \(XERO_TAX_TYPE\)/,
    );
  });
});
