import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { bookDepositSlip } from '../../src/ledger/deposit-slips.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import type { AccountRole } from '../../src/targets/account-mapping.js';
import { documentFor } from '../../src/targets/documents.js';
import type { TargetDocument } from '../../src/targets/target-port.js';

// Checks received outside the service and banked on one deposit slip, as every target receives them: the
// documents come from a real ledger (the entries, bookDepositSlip, documentFor).
//
//   03-01 invoices A 300.00 and B 200.00
//   03-02 a check of 300.00 received on A, 03-03 one of 200.00 on B (external payments: Checks To Deposit)
//   03-04 deposit slip SLIP-<run> takes both to the bank: one document of 500.00, Checks To Deposit back to 0

export interface DepositSlipScenario {
  run: string;
  reference: string;
  documents: TargetDocument[];
  ledgerBalances: Partial<Record<AccountRole, number>>;
}

export const depositedBalances: Partial<Record<AccountRole, number>> = {
  OperatingBank: 500_00,
  ChecksToDeposit: 0,
  AccountsReceivable: 0,
  Revenue: -500_00,
};

export async function depositSlipScenario(): Promise<DepositSlipScenario> {
  const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const reference = `SLIP-${run}`;
  const links = { A: `plA_${run}`, B: `plB_${run}` };
  const ledger = EmbeddedLedger.open();
  try {
    for (const [name, link, cents, paid] of [
      ['A', links.A, 300_00, '2026-03-02'],
      ['B', links.B, 200_00, '2026-03-03'],
    ] as const) {
      const customerId = `cus_${name}_${run}`;
      await ledger.post({
        key: `invoice:${link}`,
        date: '2026-03-01',
        description: `Invoice ${link}`,
        lines: [
          { account: Accounts.AccountsReceivable, amountCents: cents },
          { account: Accounts.Revenue, amountCents: -cents },
        ],
        links: { paymentLinkId: link, customerId },
      });
      await ledger.post({
        key: `external-payment:ep${name}_${run}`,
        date: paid,
        description: `External payment ep${name}_${run} on payment link ${link}`,
        lines: [
          { account: Accounts.ChecksToDeposit, amountCents: cents },
          { account: Accounts.AccountsReceivable, amountCents: -cents },
        ],
        links: { paymentLinkId: link, customerId, externalPaymentId: `ep${name}_${run}` },
      });
    }
    await bookDepositSlip(ledger, {
      reference,
      date: '2026-03-04',
      payments: [
        { paymentLinkId: links.A, externalPaymentId: `epA_${run}` },
        { paymentLinkId: links.B, externalPaymentId: `epB_${run}` },
      ],
    });
    const documents: TargetDocument[] = [];
    for (const entry of await ledger.allEntries()) {
      documents.push(
        await documentFor(
          entry,
          {
            paymentLink: async (id) => ({
              name: `DEP-${id.slice(2, 3)}-${run}`,
              customerId: `cus_${id.slice(2, 3)}_${run}`,
            }),
            customer: async (id) => ({ serviceId: id, name: `Slip ${id}`, email: null }),
            vendor: async () => {
              throw new Error('no vendor in this scenario');
            },
            bill: async () => {
              throw new Error('no bill in this scenario');
            },
            payout: async () => ({ paymentIds: [] }),
          },
          { get: (key) => ledger.get(key), entriesFor: (filter) => ledger.entriesFor(filter) },
        ),
      );
    }
    const ledgerBalances: Partial<Record<AccountRole, number>> = {};
    for (const [role, account] of [
      ['OperatingBank', Accounts.OperatingBank],
      ['ChecksToDeposit', Accounts.ChecksToDeposit],
      ['AccountsReceivable', Accounts.AccountsReceivable],
      ['Revenue', Accounts.Revenue],
    ] as const) {
      ledgerBalances[role] = await ledger.balanceOf(account);
    }
    return { run, reference, documents, ledgerBalances };
  } finally {
    ledger.close();
  }
}
