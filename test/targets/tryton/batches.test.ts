import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import { TargetRefusedError } from '../../../src/targets/errors.js';
import type { PushResult, TargetDocument } from '../../../src/targets/target-port.js';
import { createTrytonTarget } from '../../../src/targets/tryton/index.js';
import { pushIndex } from '../../support/push-index.js';
import { startTryton, type TrytonServer } from '../../support/tryton.js';
import { documentsForContract } from '../target-contract.js';

// A slice pushed to a real Tryton 8.2 in batches: its invoices created in one call and posted in one, its
// moves likewise; Tryton runs each call in one transaction, so a document it refuses is found by splitting
// the call and fails alone, with Tryton's message, while the rest of the slice is pushed.

let tryton: TrytonServer;

beforeAll(async () => {
  // As production runs it: the task queue on, an invoice turning paid a moment after its reconciliation.
  tryton = await startTryton({ queue: true });
}, 300_000);
afterAll(async () => {
  await tryton?.close();
});

/** The target, with the JSON-RPC methods it calls counted. */
function countedTarget() {
  const calls = new Map<string, number>();
  const target = createTrytonTarget({
    url: tryton.url,
    database: tryton.database,
    username: tryton.username,
    password: tryton.password,
    accounts: defaultAccountCodes,
    matching: 'create',
    fetch: async (url, init) => {
      const method = String(JSON.parse(String(init?.body ?? '{}')).method);
      calls.set(method, (calls.get(method) ?? 0) + 1);
      return fetch(url, init);
    },
  });
  return { target, calls };
}

/** Records a slice's outcomes in the index, as the push activity does; a document that failed fails the test. */
function recordIn(index: ReturnType<typeof pushIndex>) {
  return (docs: TargetDocument[], outcomes: (PushResult | Error)[]) => {
    for (const [i, o] of outcomes.entries()) {
      if (o instanceof Error) throw o;
      index.pushed.set((docs[i] as TargetDocument).key, o);
    }
  };
}

function slice() {
  const a = documentsForContract();
  const b = documentsForContract();
  const vendor = { serviceId: `ven_${a.run}`, name: `Batch Vendor ${a.run}`, email: null };
  const paysA: TargetDocument = {
    ...a.payment,
    amountCents: 120_00,
    lines: [
      { role: 'ProcessorClearing', amountCents: 120_00 },
      { role: 'AccountsReceivable', amountCents: -120_00 },
    ],
  };
  const bill: TargetDocument = {
    key: `bill:bill_${a.run}`,
    kind: 'bill',
    date: '2026-11-03',
    description: `Bill bill_${a.run}`,
    amountCents: 30_00,
    lines: [
      { role: 'BillExpenses', amountCents: 30_00 },
      { role: 'AccountsPayable', amountCents: -30_00 },
    ],
    contentHash: 'd'.repeat(64),
    bill: { billId: `bill_${a.run}`, number: `V-${a.run}` },
    vendor,
  };
  const fee: TargetDocument = {
    key: `payment-fee:pay_${a.run}`,
    kind: 'payment-fee',
    // A day no fiscal year of the company covers: Tryton refuses the move (no period for its date).
    date: '1999-11-03',
    description: `Card fee of pay_${a.run}`,
    amountCents: 3_80,
    lines: [
      { role: 'ProcessingFees', amountCents: 3_80 },
      { role: 'ProcessorClearing', amountCents: -3_80 },
    ],
    contentHash: 'e'.repeat(64),
  };
  // Lines that do not balance: Tryton creates the move, and refuses to post it.
  const unbalanced: TargetDocument = {
    key: `check-cleared:cd_${a.run}`,
    kind: 'check-cleared',
    date: '2026-11-04',
    description: `Check deposit cd_${a.run} cleared`,
    amountCents: 10_00,
    lines: [
      { role: 'OperatingBank', amountCents: 10_00 },
      { role: 'ChecksToDeposit', amountCents: -9_00 },
    ],
    contentHash: 'f'.repeat(64),
  };
  // B's invoice dated before A's, pushed after it: numbered all the same.
  const invoiceB = { ...b.invoice, date: '2026-11-01' };
  return { a, b, docs: [a.invoice, invoiceB, bill, paysA, fee, unbalanced, b.payment], fee, unbalanced };
}

async function invoiceState(paymentLinkId: string): Promise<string | undefined> {
  const [row] = await tryton.rpc.searchRead<{ state: string }>(
    'account.invoice',
    [['comment', '=', `booksync-link:${paymentLinkId}`]],
    ['state'],
  );
  return row?.state;
}

describe('Tryton: a slice pushed in batches', { timeout: 240_000 }, () => {
  it('creates and posts the slice’s invoices in one call each; a refused document fails alone with Tryton’s message', async () => {
    const { target, calls } = countedTarget();
    expect(target.batches).toBe(true);
    const { a, b, docs, fee, unbalanced } = slice();
    const outcomes = await target.pushMany(docs, pushIndex().context);

    expect(outcomes).toHaveLength(docs.length);
    const byKey = new Map(docs.map((d, i) => [d.key, outcomes[i]]));
    // The refused two: each its own refusal, with what Tryton said.
    const feeRefusal = byKey.get(fee.key);
    const postRefusal = byKey.get(unbalanced.key);
    expect(feeRefusal).toBeInstanceOf(TargetRefusedError);
    expect((feeRefusal as TargetRefusedError).targetMessage).toMatch(/period|fiscal year/i);
    expect(postRefusal).toBeInstanceOf(TargetRefusedError);
    expect((postRefusal as TargetRefusedError).targetMessage).toMatch(/you must balance/i);
    expect(feeRefusal).not.toBe(postRefusal);
    // Every other document pushed, and in Tryton.
    const pushed = outcomes.filter((o): o is PushResult => !(o instanceof Error));
    expect(pushed.map((p) => p.key).sort()).toEqual(
      docs
        .map((d) => d.key)
        .filter((k) => k !== fee.key && k !== unbalanced.key)
        .sort(),
    );
    expect(pushed.every((p) => p.created && p.remoteIds.length > 0)).toBe(true);
    // The three invoices (two customer, one supplier) in one create and one post.
    expect(calls.get('model.account.invoice.create')).toBe(1);
    expect(calls.get('model.account.invoice.post')).toBe(1);
    expect(await tryton.amountToPay(b.invoice.invoice!.paymentLinkId)).toBe(70_00);
    // A paid in full: reconciled in the second wave; paid as Tryton says it (its worker may take a moment).
    expect(await tryton.amountToPay(a.invoice.invoice!.paymentLinkId)).toBe(0);
    let state = await invoiceState(a.invoice.invoice!.paymentLinkId);
    for (let i = 0; state !== 'paid' && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 100));
      state = await invoiceState(a.invoice.invoice!.paymentLinkId);
    }
    expect(state).toBe('paid');
    // The fee wrote nothing; the unbalanced move stays a draft, found by key on the retry.
    const marked = async (key: string) =>
      tryton.rpc.searchRead<{ state: string }>(
        'account.move',
        [['description', 'like', `booksync:${key} %`]],
        ['state'],
      );
    expect(await marked(fee.key)).toEqual([]);
    expect((await marked(unbalanced.key)).map((m) => m.state)).toEqual(['draft']);
  });

  it('reads the invoices a slice’s payments settle in one call, and an invoice it posted itself not again', async () => {
    const { target, calls } = countedTarget();
    const links = [documentsForContract(), documentsForContract(), documentsForContract()];
    const index = pushIndex();
    const record = recordIn(index);
    // One slice: three invoices, and a payment of the first, which settles an invoice the slice posted.
    const first = [...links.map((l) => l.invoice), links[0]!.payment];
    record(first, await target.pushMany(first, index.context));
    expect(calls.get('model.account.invoice.read')).toBe(1);
    // The next slice: payments of the two others, their invoices read together before they are planned.
    calls.clear();
    const second = [links[1]!.payment, links[2]!.payment];
    record(second, await target.pushMany(second, index.context));
    expect(calls.get('model.account.invoice.read')).toBe(1);
    for (const l of links) expect(await tryton.amountToPay(l.invoice.invoice!.paymentLinkId)).toBe(70_00);
  });

  it('reconciles the invoices a slice pays in full in one wizard session, a run each; their reports queue behind the processing the push waits for', async () => {
    const { target, calls } = countedTarget();
    const links = [documentsForContract(), documentsForContract(), documentsForContract()];
    const index = pushIndex();
    const record = recordIn(index);
    const invoices = links.map((l) => l.invoice);
    record(invoices, await target.pushMany(invoices, index.context));
    calls.clear();
    // Each invoice paid in full (120.00) by a payment of its own, all in one slice.
    const payments = links.map(
      (l): TargetDocument => ({
        ...l.payment,
        amountCents: 120_00,
        lines: [
          { role: 'ProcessorClearing', amountCents: 120_00 },
          { role: 'AccountsReceivable', amountCents: -120_00 },
        ],
      }),
    );
    record(payments, await target.pushMany(payments, index.context));
    const wizard = (step: string) => calls.get(`wizard.account.move.reconcile_lines.${step}`);
    expect([wizard('create'), wizard('execute'), wizard('delete')]).toEqual([1, 3, 1]);
    for (const l of links) {
      expect(await tryton.amountToPay(l.invoice.invoice!.paymentLinkId)).toBe(0);
      // Each invoice reconciled on its own: paid, once Tryton's worker has processed it.
      expect(await invoiceState(l.invoice.invoice!.paymentLinkId)).toBe('paid');
    }
    const invoiceRows = await tryton.rpc.searchRead<{ id: number; lines_to_pay: number[] }>(
      'account.invoice',
      [['comment', 'in', links.map((l) => `booksync-link:${l.invoice.invoice!.paymentLinkId}`)]],
      ['lines_to_pay'],
    );
    const lines = await tryton.rpc.model<{ reconciliation: number | null }[]>(
      'account.move.line',
      'read',
      invoiceRows.flatMap((r) => r.lines_to_pay),
      ['reconciliation'],
    );
    expect(lines.every((l) => l.reconciliation !== null)).toBe(true);
    // One reconciliation an invoice.
    expect(new Set(lines.map((l) => l.reconciliation)).size).toBe(3);
    // Tryton's task queue: the invoices' reports were asked for one invoice a task, within five minutes (after
    // the processing the push waits for, which is wanted as soon as possible), and the processing of each
    // reconciliation ran (none is left waiting).
    const tasks = (method: string) =>
      tryton.postgres
        .psqlSync(
          `select data::json->'instances', extract(epoch from expected_at - enqueued_at)::int, finished_at is not null from ir_queue where data::json->>'method' = '${method}' order by id`,
          tryton.database,
        )
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((row) => row.split('|'));
    const instances = (json: string | undefined) => JSON.parse(json ?? '[]') as number[];
    const reports = tasks('print_invoice').filter(([json]) =>
      invoiceRows.some((r) => instances(json).includes(r.id)),
    );
    expect(reports.map(([json, within]) => [instances(json).length, within])).toEqual(
      invoiceRows.map(() => [1, '300']),
    );
    expect(tasks('process').every(([, within, finished]) => within === '' && finished === 't')).toBe(true);
  });
});
