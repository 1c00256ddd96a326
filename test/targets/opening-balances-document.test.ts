import { markerTextOf, XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import type { BookedEntry } from '../../src/ledger/entry.js';
import { openingEntry } from '../../src/ledger/opening-balances.js';
import { defaultAccountCodes } from '../../src/targets/account-mapping.js';
import { documentFor, type ReferenceData } from '../../src/targets/documents.js';
import { markersIn } from '../../src/targets/markers.js';
import { TokenCipher } from '../../src/targets/oauth/token-cipher.js';
import type { PushContext } from '../../src/targets/target-port.js';
import { xeroOrganisation } from '../support/xero/organisation.js';

// A backfill's opening entry (`opening-balances:<since>`: the money in flight when the books open, against
// Opening Balances) is a document every target takes: a journal. Before, the push refused it at every target
// ("ledger entry opening-balances:... has no document kind", FAILED, found by the combination suite).

const booked = (): BookedEntry => {
  const input = openingEntry('2026-11-28', { [Accounts.ProcessorClearing]: 48_25 });
  if (!input) throw new Error('no opening entry');
  return {
    ...input,
    lines: [...input.lines],
    links: input.links ?? {},
    id: 1,
    reverses: null,
    reversedBy: null,
    contentHash: 'a'.repeat(64),
    createdAt: '2026-11-28T00:00:00.000Z',
  };
};
const nothing = (): never => {
  throw new Error('an opening entry names no service object');
};
const references: ReferenceData = {
  paymentLink: nothing,
  customer: nothing,
  vendor: nothing,
  bill: nothing,
  payout: nothing,
};
const noEntries = { get: async () => null, entriesFor: async () => [] };

describe('the opening entry as a target document', () => {
  it('is an opening-balances document: money in flight against Opening Balances, dated the day before', async () => {
    const doc = await documentFor(booked(), references, noEntries);
    expect(doc).toMatchObject({
      key: 'opening-balances:2026-11-28',
      kind: 'opening-balances',
      date: '2026-11-27',
      amountCents: 48_25,
      lines: [
        { role: 'ProcessorClearing', amountCents: 48_25 },
        { role: 'OpeningBalances', amountCents: -48_25 },
      ],
    });
  });

  describe('at Xero (the double)', () => {
    const double = new XeroDouble({ latencyMs: 1 });
    const cipher = new TokenCipher('test-secret-for-opening-balances');
    beforeAll(() => double.start(), 60_000);
    afterAll(() => double.stop());

    it('is a manual journal (where a crashed push looks it up again), its lines on the mapped accounts', async () => {
      const { tenantId, target: connect } = xeroOrganisation(double, cipher, {
        limits: { perMinute: 60, concurrent: 5, perDay: 5_000, windowMs: 1_000 },
      });
      const target = connect();
      const doc = await documentFor(booked(), references, noEntries);
      const context: PushContext = { mayExist: () => false, refusals: () => 0, pushed: () => null };
      const result = await target.push(doc, context);
      const journals = double
        .all(tenantId, 'ManualJournals')
        .filter((j) => markersIn(markerTextOf(j)).some((m) => m.key === doc.key));
      expect(journals).toHaveLength(1);
      expect(
        ((journals[0]?.JournalLines ?? []) as { AccountCode: string; LineAmount: number }[]).map((l) => [
          l.AccountCode,
          l.LineAmount,
        ]),
      ).toEqual([
        [defaultAccountCodes.ProcessorClearing, 48.25],
        [defaultAccountCodes.OpeningBalances, -48.25],
      ]);
      // A push cut short after the create is found again, not made twice.
      const again = await target.push(doc, { mayExist: () => true, refusals: () => 0, pushed: () => null });
      expect(again.remoteIds).toEqual(result.remoteIds);
      expect(double.violations).toEqual([]);
    });
  });
});
