import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAccountCodes } from '../../../src/targets/account-mapping.js';
import type { PushContext } from '../../../src/targets/target-port.js';
import { centsOf, type TrytonDecimal } from '../../../src/targets/tryton/json-rpc.js';
import { pushIndex } from '../../support/push-index.js';
import { startTryton, type TrytonServer, trytonTarget } from '../../support/tryton.js';
import { payoutDay } from '../payout-documents.js';

// In a real Tryton 8.2 on PostgreSQL: a payout's move credits Processor Clearing once per
// receipt it carries, each line's origin the receipt's own Processor Clearing line (Tryton's Reference from
// a move line to a move line), and once for what it nets (the fee), so "which payments are in this payout?"
// is answered from Tryton alone; pushed again from a restarted worker, nothing is made twice.

let tryton: TrytonServer;

const connect = () => trytonTarget(tryton);

interface Line {
  id: number;
  move: number;
  account: number;
  debit: TrytonDecimal;
  credit: TrytonDecimal;
  origin: string | null;
}

/** The posted moves carrying a key's marker, read from Tryton. */
async function movesOf(key: string): Promise<{ id: number; description: string }[]> {
  return tryton.rpc.searchRead<{ id: number; description: string }>(
    'account.move',
    [['description', 'like', `booksync:${key} %`]],
    ['description'],
  );
}

/**
 * What Tryton alone says a payout carries: the origins of its move's lines, each a move line of another
 * move, whose move's description names the receipt's key.
 */
async function receiptsOf(payoutKey: string): Promise<{ keys: string[]; origins: number[]; lines: Line[] }> {
  const [payout] = await movesOf(payoutKey);
  const lines = await tryton.rpc.searchRead<Line>(
    'account.move.line',
    [['move', '=', payout?.id ?? -1]],
    ['move', 'account', 'debit', 'credit', 'origin'],
  );
  const origins = lines
    .map((l) => l.origin)
    .filter((o): o is string => !!o?.startsWith('account.move.line,'))
    .map((o) => Number(o.split(',')[1]));
  const originLines = await tryton.rpc.model<{ id: number; move: number }[]>(
    'account.move.line',
    'read',
    origins,
    ['move'],
  );
  const moves = await tryton.rpc.model<{ id: number; description: string }[]>(
    'account.move',
    'read',
    originLines.map((l) => l.move),
    ['description'],
  );
  const keys = moves.map((m) => m.description.slice('booksync:'.length).split(' ')[0] ?? '');
  return { keys, origins, lines };
}

beforeAll(async () => {
  tryton = await startTryton();
}, 240_000);
afterAll(async () => {
  await tryton?.close();
});

describe('Tryton: which payments a payout carries', () => {
  it('the payout move’s clearing lines name the payments it carries (origin), exactly the first one; nothing twice after a restart', async () => {
    const day = payoutDay();
    const { pushed, context } = pushIndex();
    const target = connect();
    for (const doc of [day.invoice, day.p1, day.p2, day.fee, day.payout])
      pushed.set(doc.key, await target.push(doc, context));

    const { keys, origins, lines } = await receiptsOf(day.payout.key);
    expect(keys).toEqual([day.p1.key]);
    // The origin is p1's own Processor Clearing line (its 50.00 debit), not p2's.
    const [clearing] = await tryton.rpc.searchRead<{ id: number }>(
      'account.account',
      [['code', '=', defaultAccountCodes.ProcessorClearing]],
      ['id'],
    );
    const p1Move = Number(pushed.get(day.p1.key)?.remoteIds[0]?.split(',')[1]);
    const p1Lines = await tryton.rpc.searchRead<Line>(
      'account.move.line',
      [
        ['move', '=', p1Move],
        ['account', '=', clearing?.id ?? -1],
      ],
      ['debit'],
    );
    expect(origins).toEqual(p1Lines.map((l) => l.id));
    // On Processor Clearing: 50.00 out for p1, 1.75 back for the fee it nets; 48.25 into Payouts In Transit.
    const onClearing = lines.filter((l) => l.account === clearing?.id);
    expect(onClearing.map((l) => [centsOf(l.debit), centsOf(l.credit), l.origin !== null]).sort()).toEqual(
      [
        [0, 50_00, true],
        [1_75, 0, false],
      ].sort(),
    );
    const balances = await tryton.balances([
      defaultAccountCodes.ProcessorClearing,
      defaultAccountCodes.PayoutsInTransit,
    ]);
    expect(balances[defaultAccountCodes.ProcessorClearing]).toBe(30_00);
    expect(balances[defaultAccountCodes.PayoutsInTransit]).toBe(48_25);

    // A restarted worker, with no index at hand: the move is found by its key, nothing is made twice.
    const again = await connect().push(day.payout, {
      mayExist: () => true,
      refusals: () => 0,
      pushed: () => null,
      closedThrough: null,
    });
    expect(again.created).toBe(false);
    expect(again.remoteIds).toEqual(pushed.get(day.payout.key)?.remoteIds);
    expect(await movesOf(day.payout.key)).toHaveLength(1);
    expect((await receiptsOf(day.payout.key)).keys).toEqual([day.p1.key]);
  });

  it('a payout reversed in its month (a failed payout) is cancelled whole: the money is back in Processor Clearing', async () => {
    const day = payoutDay();
    const { pushed, context } = pushIndex();
    const target = connect();
    const before = await tryton.balances([
      defaultAccountCodes.ProcessorClearing,
      defaultAccountCodes.PayoutsInTransit,
    ]);
    for (const doc of [day.invoice, day.p1, day.p2, day.fee, day.payout])
      pushed.set(doc.key, await target.push(doc, context));
    const reversal = {
      ...day.payout,
      key: `reversal:${day.payout.key}`,
      kind: 'reversal' as const,
      date: '2026-11-09',
      description: `Reversal of ${day.payout.key}: payout.failed`,
      lines: day.payout.lines.map((l) => ({ ...l, amountCents: -l.amountCents })),
      contentHash: '8'.repeat(64),
      reverses: day.payout.key,
      reason: 'payout.failed',
      originalDate: day.payout.date,
    };
    const { payout: _carried, ...reversing } = reversal;
    await target.push(reversing, context);
    const after = await tryton.balances([
      defaultAccountCodes.ProcessorClearing,
      defaultAccountCodes.PayoutsInTransit,
    ]);
    // p1 and p2 less the fee are in Processor Clearing again; nothing is in transit.
    expect(
      (after[defaultAccountCodes.ProcessorClearing] ?? 0) -
        (before[defaultAccountCodes.ProcessorClearing] ?? 0),
    ).toBe(78_25);
    expect(after[defaultAccountCodes.PayoutsInTransit]).toBe(before[defaultAccountCodes.PayoutsInTransit]);
  });

  it('a payout pushed by a worker with no index finds its receipts in Tryton by their keys', async () => {
    const day = payoutDay();
    const context: PushContext = {
      mayExist: () => false,
      refusals: () => 0,
      pushed: () => null,
      closedThrough: null,
    };
    for (const doc of [day.invoice, day.p1, day.p2, day.fee]) await connect().push(doc, context);
    await connect().push(day.payout, context);
    expect((await receiptsOf(day.payout.key)).keys).toEqual([day.p1.key]);
  });
});
