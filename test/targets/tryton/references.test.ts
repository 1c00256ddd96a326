import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushContext, RemoteRecord, TargetDocument } from '../../../src/targets/target-port.js';
import { pushIndex } from '../../support/push-index.js';
import { startTryton, type TrytonServer, trytonTarget } from '../../support/tryton.js';
import { documentsForContract } from '../target-contract.js';

// In a real Tryton 8.2 on PostgreSQL: a move's lines start their description with the
// business's own reference of the money (a check number, a payout id), what the account's lines show a
// bookkeeper reconciling the bank; booksync's marker stays in the move's description, and a restarted
// worker finds the move by it.

let tryton: TrytonServer;

const connect = () => trytonTarget(tryton);

const restarted: PushContext = {
  mayExist: () => true,
  refusals: () => 0,
  pushed: () => null,
  closedThrough: null,
};

beforeAll(async () => {
  tryton = await startTryton();
}, 300_000);
afterAll(async () => {
  await tryton?.close();
});

const moveOf = (record: RemoteRecord | undefined) =>
  Number(record?.remoteIds.find((r) => r.startsWith('account.move,'))?.split(',')[1]);

async function lineDescriptions(move: number): Promise<string[]> {
  const lines = await tryton.rpc.searchRead<{ description: string | null }>(
    'account.move.line',
    [['move', '=', move]],
    ['description'],
  );
  return lines.map((l) => String(l.description));
}

async function movesMarked(key: string): Promise<{ id: number; description: string }[]> {
  return tryton.rpc.searchRead<{ id: number; description: string }>(
    'account.move',
    [['description', 'like', `booksync:${key} %`]],
    ['description'],
  );
}

describe('Tryton: the business’s references', { timeout: 180_000 }, () => {
  it('an external payment’s lines start with its reference, the marker stays in the move; found again after a restart', async () => {
    const docs = documentsForContract();
    const check: TargetDocument = {
      ...docs.payment,
      key: `external-payment:ep_${docs.run}`,
      kind: 'external-payment',
      description: `External payment ep_${docs.run} on payment link ${docs.invoice.invoice?.paymentLinkId}`,
      amountCents: 40_00,
      lines: [
        { role: 'ChecksToDeposit', amountCents: 40_00 },
        { role: 'AccountsReceivable', amountCents: -40_00 },
      ],
      contentHash: '4'.repeat(64),
      reference: `ep_${docs.run}`,
      businessReference: 'CHK-1042',
    };
    const { pushed, context } = pushIndex();
    const target = connect();
    for (const doc of [docs.invoice, check]) pushed.set(doc.key, await target.push(doc, context));
    const move = moveOf(pushed.get(check.key));
    expect(await lineDescriptions(move)).toEqual([
      `CHK-1042 - ${check.description}`,
      `CHK-1042 - ${check.description}`,
    ]);
    const [marked, ...others] = await movesMarked(check.key);
    expect(others).toEqual([]);
    expect(marked?.id).toBe(move);
    expect(marked?.description.startsWith(`booksync:${check.key} ${check.contentHash}`)).toBe(true);
    // A new process with no index: found by the marker, not booked twice.
    const again = await connect().push(check, restarted);
    expect(again).toMatchObject({ created: false, remoteIds: pushed.get(check.key)?.remoteIds });
    expect(await movesMarked(check.key)).toHaveLength(1);
  });

  it('a payout’s move carries the payout id on its lines; money with no reference keeps the description alone', async () => {
    const docs = documentsForContract();
    const payout: TargetDocument = {
      key: `disbursement-paid:dis_${docs.run}`,
      kind: 'disbursement-paid',
      date: '2026-11-04',
      description: `Disbursement dis_${docs.run} paid`,
      amountCents: 73_25,
      lines: [
        { role: 'OperatingBank', amountCents: 73_25 },
        { role: 'PayoutsInTransit', amountCents: -73_25 },
      ],
      contentHash: '5'.repeat(64),
      reference: `dis_${docs.run}`,
      businessReference: `dis_${docs.run}`,
    };
    const fee: TargetDocument = {
      key: `payment-fee:pay_${docs.run}`,
      kind: 'payment-fee',
      date: '2026-11-04',
      description: `Processing fee of payment pay_${docs.run}`,
      amountCents: 1_75,
      lines: [
        { role: 'ProcessingFees', amountCents: 1_75 },
        { role: 'ProcessorClearing', amountCents: -1_75 },
      ],
      contentHash: '6'.repeat(64),
    };
    const target = connect();
    const none: PushContext = {
      mayExist: () => false,
      refusals: () => 0,
      pushed: () => null,
      closedThrough: null,
    };
    const paid = await target.push(payout, none);
    const charged = await target.push(fee, none);
    expect(await lineDescriptions(moveOf(paid))).toEqual([
      `dis_${docs.run} - ${payout.description}`,
      `dis_${docs.run} - ${payout.description}`,
    ]);
    expect(await lineDescriptions(moveOf(charged))).toEqual([fee.description, fee.description]);
    expect(await connect().push(payout, restarted)).toMatchObject({ created: false });
    expect(await movesMarked(payout.key)).toHaveLength(1);
  });
});
