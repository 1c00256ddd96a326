import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { describe, expect, it } from 'vitest';
import { TargetUnavailableError } from '../../../src/targets/errors.js';
import { TokenCipher } from '../../../src/targets/quickbooks/index.js';
import type { PushContext, TargetDocument } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { quickBooksCompany } from '../../support/quickbooks/company.js';
import { documentsForContract } from '../target-contract.js';

// Intuit documents the requestid but not how long QBO keeps it, and QBO has been seen making two records for
// one requestid (intuit/QuickBooks-V3-DotNET-SDK#352). Against a QBO that does not honour it at all, booksync
// makes one document per key because an attempt after one that may have written (the index's mark:
// PushContext.mayExist) looks the key's marker up before it creates.

const double = doubleForFile(new QuickBooksDouble({ requestIdRetentionMs: 0 }), { calm: true });
const cipher = new TokenCipher('test-secret-for-quickbooks-requestid');
const company = () => quickBooksCompany(double, cipher);

/** The index after an attempt that marked the entries and was cut short: they may be at QBO. */
const marked: PushContext = { mayExist: () => true, refusals: () => 0, pushed: () => null };
/** The index for entries no attempt ever wrote. */
const unmarked: PushContext = { mayExist: () => false, refusals: () => 0, pushed: () => null };

/** Records at QBO carrying the key's marker. */
function countByKey(realmId: string, key: string): number {
  return ['Invoice', 'Payment'].reduce(
    (sum, entity) =>
      sum +
      double.all(realmId, entity).filter((r) => String(r.PrivateNote).includes(`booksync key=${key} `))
        .length,
    0,
  );
}

/** The requestids of a company's POSTs to a path (`payment`, `batch`). */
function requestIds(realmId: string, path: string): string[] {
  return double.requests
    .filter((r) => r.realmId === realmId && r.method === 'POST' && r.url.includes(`/${path}?`))
    .map((r) => new URL(r.url, double.url).searchParams.get('requestid') ?? '');
}

describe('QuickBooks Online: a requestid QBO does not honour', () => {
  it('a create whose answer was lost is found by its marker on the next attempt, not made twice', async () => {
    const c = company();
    const docs = documentsForContract();
    await c.target().push(docs.invoice, unmarked);
    double.loseResponses(1);
    await expect(c.target().push(docs.payment, unmarked)).rejects.toBeInstanceOf(TargetUnavailableError);
    const again = await c.target().push(docs.payment, marked);
    expect(again.created).toBe(false);
    expect(countByKey(c.realmId, docs.payment.key)).toBe(1);

    // Without the look-up the requestid alone would not have saved it: this QBO makes a second payment.
    const other = documentsForContract();
    await c.target().push(other.invoice, unmarked);
    double.loseResponses(1);
    await expect(c.target().push(other.payment, unmarked)).rejects.toBeInstanceOf(TargetUnavailableError);
    const [sent] = requestIds(c.realmId, 'payment').slice(-1);
    await c.target().push(other.payment, unmarked);
    expect(requestIds(c.realmId, 'payment').slice(-1)).toEqual([sent]);
    expect(countByKey(c.realmId, other.payment.key)).toBe(2);
  });

  it('a backlog created in batches by an attempt cut short before its index write is found, not made again', async () => {
    const c = company();
    const backlog: TargetDocument[] = Array.from({ length: 3 }, () => documentsForContract()).flatMap((d) => [
      d.invoice,
      d.payment,
    ]);
    const first = await c.target().pushMany(backlog, unmarked);
    expect(first.every((o) => !(o instanceof Error) && o.created)).toBe(true);
    const creates = double.creates(c.realmId);
    const again = await c.target().pushMany(backlog, marked);
    expect(again.map((o) => (o instanceof Error ? o.message : o.created))).toEqual(backlog.map(() => false));
    expect(double.creates(c.realmId)).toBe(creates);
  });
});

describe('QuickBooks Online: requestids per company', () => {
  it('the same documents pushed to two companies are sent with requestids of their own', async () => {
    const [a, b] = [company(), company()];
    const docs = documentsForContract();
    const sent = async (c: ReturnType<typeof company>) => {
      const from = double.requests.length;
      const target = c.target();
      for (const doc of [docs.invoice, docs.payment, docs.reversal]) await target.push(doc, unmarked);
      return double.requests
        .slice(from)
        .filter((r) => r.realmId === c.realmId && r.method === 'POST')
        .map((r) => new URL(r.url, double.url).searchParams.get('requestid'));
    };
    const ofA = await sent(a);
    const ofB = await sent(b);
    // Same documents, same steps, and in two new companies the same Ids: only the company tells them apart.
    expect(ofA.length).toBe(ofB.length);
    expect(ofA.length).toBeGreaterThan(3);
    for (const id of ofA) expect(ofB).not.toContain(id);
  });
});
