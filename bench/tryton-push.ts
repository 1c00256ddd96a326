import { defaultAccountCodes } from '../src/accounting/targets/account-mapping.js';
import type { TargetDocument } from '../src/accounting/targets/target-port.js';
import { createTrytonTarget } from '../src/accounting/targets/tryton/index.js';
import { dateOf, decimalOf, standardPeriod } from '../src/accounting/targets/tryton/json-rpc.js';
import { startTryton } from '../test/support/tryton.js';

// Stage: documents pushed to a real Tryton (PostgreSQL) through booksync's target, against the floor it
// cannot beat: a bare create-and-post of the same move over the same JSON-RPC connection. The target adds
// its look-up by key (idempotency) and the invoice settlement; the ratio is what they cost.

export interface TrytonPushResult {
  documents: number;
  pushedPerSecond: number;
  bareCreatePostPerSecond: number;
  /** pushed / bare: the goal is at least 0.5. */
  ratio: number;
}

export async function benchTrytonPush(options: {
  documents: number;
  progress: (line: string) => void;
}): Promise<TrytonPushResult> {
  const tryton = await startTryton();
  try {
    const target = createTrytonTarget({
      url: tryton.url,
      database: tryton.database,
      username: tryton.username,
      password: tryton.password,
      accounts: defaultAccountCodes,
      matching: 'create',
    });
    await target.verify();
    const rpc = target.rpc;
    const run = Date.now().toString(36);
    const customer = { serviceId: `cus_bench_${run}`, name: 'Bench Customer', email: null };
    const date = new Date().toISOString().slice(0, 10);
    // One invoice per payment, as a business has them (setup, not timed): each payment settles its own.
    const invoiceOf = (i: number) => ({ paymentLinkId: `pl_bench_${run}_${i}`, number: `INV-B-${run}-${i}` });
    for (let i = 0; i < options.documents; i++) {
      await target.push(
        {
          key: `invoice:pl_bench_${run}_${i}`,
          kind: 'invoice',
          date,
          description: 'Bench invoice',
          amountCents: 200,
          lines: [
            { role: 'AccountsReceivable', amountCents: 200 },
            { role: 'Revenue', amountCents: -200 },
          ],
          contentHash: 'b'.repeat(64),
          invoice: invoiceOf(i),
          customer,
        },
        { mayExist: () => false, pushed: () => null },
      );
    }
    options.progress(`tryton: ${options.documents} invoices ready`);
    const payment = (i: number): TargetDocument => ({
      key: `payment:bench_${run}_${i}`,
      kind: 'payment',
      date,
      description: `Bench payment ${i}`,
      amountCents: 100,
      lines: [
        { role: 'ProcessorClearing', amountCents: 100 },
        { role: 'AccountsReceivable', amountCents: -100 },
      ],
      contentHash: 'c'.repeat(64),
      invoice: invoiceOf(i),
      customer,
    });
    const [account] = await rpc.searchRead<{ id: number }>(
      'account.account',
      [['code', '=', '1020']],
      ['id'],
    );
    const [other] = await rpc.searchRead<{ id: number }>('account.account', [['code', '=', '6010']], ['id']);
    const [journal] = await rpc.searchRead<{ id: number }>(
      'account.journal',
      [['code', '=', 'MISC']],
      ['id'],
    );
    const period = await standardPeriod(rpc, date);
    const bare = async () => {
      const [id] = await rpc.model<number[]>('account.move', 'create', [
        {
          journal: journal?.id,
          period,
          date: dateOf(date),
          description: 'bare',
          lines: [
            [
              'create',
              [
                { account: account?.id, debit: decimalOf(100), credit: decimalOf(0) },
                { account: other?.id, debit: decimalOf(0), credit: decimalOf(100) },
              ],
            ],
          ],
        },
      ]);
      await rpc.model('account.move', 'post', [id]);
    };
    // Alternate rounds so load from elsewhere hits both alike.
    let pushed = 0;
    let bareDone = 0;
    let pushMs = 0;
    let bareMs = 0;
    const round = Math.max(10, Math.floor(options.documents / 5));
    while (pushed < options.documents) {
      let t = performance.now();
      for (let i = 0; i < round && pushed < options.documents; i++)
        await target.push(payment(pushed++), { mayExist: () => false, pushed: () => null });
      pushMs += performance.now() - t;
      t = performance.now();
      for (let i = 0; i < round && bareDone < options.documents; i++, bareDone++) await bare();
      bareMs += performance.now() - t;
      options.progress(`tryton: ${pushed}/${options.documents} pushed`);
    }
    const pushedPerSecond = Math.round((pushed / pushMs) * 1000 * 10) / 10;
    const bareCreatePostPerSecond = Math.round((bareDone / bareMs) * 1000 * 10) / 10;
    return {
      documents: pushed,
      pushedPerSecond,
      bareCreatePostPerSecond,
      ratio: Math.round((pushedPerSecond / bareCreatePostPerSecond) * 100) / 100,
    };
  } finally {
    await tryton.close();
  }
}
