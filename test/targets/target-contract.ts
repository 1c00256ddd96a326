import { describe, expect, it } from 'vitest';
import { nonRetryableTargetErrors } from '../../src/targets/errors.js';
import type { AccountingTarget, PushContext, TargetDocument } from '../../src/targets/target-port.js';

// The contract every accounting target keeps (design overview, "Accounting targets"), run against each:
// the ledger mirror, Tryton, and the cloud targets' doubles. Documents are built here by hand.

const noIndex: PushContext = { mayExist: () => true, refusals: () => 0, pushed: () => null };
let sequence = 0;

/** A fresh invoice, its payment and that payment's reversal, with ids unique to this call. */
export function documentsForContract() {
  const run = `${Date.now().toString(36)}${(sequence++).toString(36)}`;
  const customer = {
    serviceId: `cus_${run}`,
    name: `Contract Customer ${run}`,
    email: `${run}@contract.test`,
  };
  const invoice = { paymentLinkId: `pl_${run}`, number: `INV-${run}` };
  const hash = (c: string) => c.repeat(64);
  const invoiceDoc: TargetDocument = {
    key: `invoice:pl_${run}`,
    kind: 'invoice',
    date: '2026-11-02',
    description: `Invoice for payment link pl_${run}`,
    amountCents: 120_00,
    lines: [
      { role: 'AccountsReceivable', amountCents: 120_00 },
      { role: 'Revenue', amountCents: -120_00 },
    ],
    contentHash: hash('1'),
    invoice,
    customer,
    reference: `pl_${run}`,
  };
  const payment: TargetDocument = {
    key: `payment:pay_${run}`,
    kind: 'payment',
    date: '2026-11-03',
    description: `Payment pay_${run} received`,
    amountCents: 50_00,
    lines: [
      { role: 'ProcessorClearing', amountCents: 50_00 },
      { role: 'AccountsReceivable', amountCents: -50_00 },
    ],
    contentHash: hash('2'),
    invoice,
    customer,
    reference: `pay_${run}`,
  };
  const reversal: TargetDocument = {
    ...payment,
    key: `reversal:payment:pay_${run}`,
    kind: 'reversal',
    date: '2026-11-05',
    description: `Reversal of payment:pay_${run}: payment.failed`,
    lines: payment.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
    contentHash: hash('3'),
    reverses: payment.key,
    reason: 'payment.failed',
  };
  return { invoice: invoiceDoc, payment, reversal, run };
}

export interface ContractSubject {
  target: AccountingTarget;
  /** A second instance on the same books, with nothing in memory (a restarted worker). */
  fresh(): Promise<AccountingTarget>;
  /** How many records the target holds for a key, counted at the target (not by find()). */
  countByKey(key: string): Promise<number>;
  /**
   * The remote ids the target itself links a reversal to (Tryton: the cancelling move's origin), read at the
   * target. Targets that can say it should: the contract then checks the reversal names the original.
   */
  reversedAt?(reversalRemoteIds: readonly string[]): Promise<readonly string[]>;
}

export function describeTargetContract(name: string, subject: () => ContractSubject) {
  describe(`accounting target contract: ${name}`, () => {
    it('makes one document for a key pushed twice, and finds it again from a fresh instance', async () => {
      const { target, fresh, countByKey } = subject();
      const docs = documentsForContract();
      const first = await target.push(docs.invoice, noIndex);
      const second = await target.push(docs.invoice, noIndex);
      expect(first.created).toBe(true);
      expect(second.created).toBe(false);
      expect(second.remoteIds).toEqual(first.remoteIds);
      const restarted = await fresh();
      const again = await restarted.push(docs.invoice, noIndex);
      expect(again.created).toBe(false);
      expect(await restarted.find(docs.invoice.key)).toMatchObject({
        key: docs.invoice.key,
        remoteIds: first.remoteIds,
      });
      expect(await countByKey(docs.invoice.key)).toBe(1);
    });

    it('refuses the same key with other contents, non-retryably', async () => {
      const { target } = subject();
      const docs = documentsForContract();
      await target.push(docs.invoice, noIndex);
      await target.push(docs.payment, noIndex);
      const changed = { ...docs.payment, contentHash: 'f'.repeat(64) };
      const error = await target.push(changed, noIndex).then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.name).toBe('TargetConflictError');
      expect(nonRetryableTargetErrors).toContain(error?.name);
    });

    it('reverses once, linked to the original, and finds the reversal by key', async () => {
      const { target, countByKey, reversedAt } = subject();
      const docs = documentsForContract();
      await target.push(docs.invoice, noIndex);
      const original = await target.push(docs.payment, noIndex);
      const reversed = await target.push(docs.reversal, noIndex);
      const again = await target.push(docs.reversal, noIndex);
      expect(reversed.created).toBe(true);
      expect(again.created).toBe(false);
      expect(again.remoteIds).toEqual(reversed.remoteIds);
      expect(reversed.remoteIds).not.toEqual(original.remoteIds);
      expect(await countByKey(docs.reversal.key)).toBe(1);
      expect(await target.find(docs.reversal.key)).not.toBeNull();
      if (reversedAt) {
        const linked = await reversedAt(reversed.remoteIds);
        expect(linked.some((id) => original.remoteIds.includes(id))).toBe(true);
      }
    });

    it('refuses a reversal of something it never received, with its own message', async () => {
      const { target } = subject();
      const docs = documentsForContract();
      const error = await target.push(docs.reversal, noIndex).then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.name).toBe('TargetRefusedError');
      expect(error?.message).toMatch(/refused/);
    });
  });
}
