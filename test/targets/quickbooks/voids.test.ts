import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { describe, expect, it } from 'vitest';
import { TargetUnavailableError } from '../../../src/targets/errors.js';
import { TokenCipher } from '../../../src/targets/quickbooks/index.js';
import type { PushContext } from '../../../src/targets/target-port.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { quickBooksCompany } from '../../support/quickbooks/company.js';
import { documentsForContract } from '../target-contract.js';

// A reversal in the same open month voids the original as Intuit documents it. Intuit documents no change of
// a voided transaction (the double refuses one: rule voided-update), so the reversal's marker goes on the
// original before its void, which keeps the note ("Voided" is prepended), and nothing is written after.

const double = doubleForFile(new QuickBooksDouble(), { calm: true });
const cipher = new TokenCipher('test-secret-for-quickbooks-voids');
const mayExist: PushContext = { mayExist: () => true, refusals: () => 0, pushed: () => null };

const idOf = (remoteId: string | undefined) => String(remoteId).split(':').at(-1) ?? '';

/** The POSTs to a company's payment endpoint since `from` (its requests' index), as `operation[+include]`. */
function paymentWrites(realmId: string, from: number): string[] {
  return double.requests
    .slice(from)
    .filter((r) => r.realmId === realmId && r.method === 'POST' && /\/payment\?/.test(r.url))
    .map((r) => {
      const query = new URL(r.url, double.url).searchParams;
      const include = query.get('include');
      return `${query.get('operation') ?? 'create'}${include ? `+${include}` : ''}`;
    });
}

describe('QuickBooks Online: voids', () => {
  it('marks the original, then voids it, and never updates it after the void; found again by key', async () => {
    const c = quickBooksCompany(double, cipher);
    const docs = documentsForContract();
    const target = c.target();
    await target.push(docs.invoice, mayExist);
    const payment = await target.push(docs.payment, mayExist);
    const id = idOf(payment.remoteIds[0]);
    const from = double.requests.length;
    const reversed = await target.push(docs.reversal, mayExist);
    expect(reversed).toMatchObject({ remoteIds: [`void:Payment:${id}`], created: true });
    // The marker by a sparse update of the live payment, then the void: the void is the last write.
    expect(paymentWrites(c.realmId, from)).toEqual(['update', 'update+void']);
    expect(double.isVoided(c.realmId, 'Payment', id)).toBe(true);
    const note = String(double.get(c.realmId, 'Payment', id)?.PrivateNote);
    expect(note).toMatch(/^Voided /);
    expect(note).toContain(`booksync key=${docs.reversal.key} `);
    expect(note).toContain(`booksync key=${docs.payment.key} `);

    // A restarted worker finds both keys on the voided payment, and writes nothing more to it.
    const fresh = c.target();
    const again = double.requests.length;
    expect(await fresh.find(docs.reversal.key)).toMatchObject({ remoteIds: [`void:Payment:${id}`] });
    expect(await fresh.push(docs.reversal, mayExist)).toMatchObject({ created: false });
    expect(await fresh.find(docs.payment.key)).toMatchObject({ remoteIds: [`Payment:${id}`] });
    expect(paymentWrites(c.realmId, again)).toEqual([]);
  });

  it('a void cut short after the marker is made on the next attempt, the marker not added twice', async () => {
    const c = quickBooksCompany(double, cipher);
    const docs = documentsForContract();
    await c.target().push(docs.invoice, mayExist);
    const id = idOf((await c.target().push(docs.payment, mayExist)).remoteIds[0]);
    const from = double.requests.length;
    // The marker is written and its answer lost: the attempt ends before the void.
    double.loseResponses(1);
    await expect(c.target().push(docs.reversal, mayExist)).rejects.toBeInstanceOf(TargetUnavailableError);
    expect(paymentWrites(c.realmId, from)).toEqual(['update']);
    expect(double.isVoided(c.realmId, 'Payment', id)).toBe(false);
    // Marked, not voided: not taken for a reversal done.
    expect(await c.target().find(docs.reversal.key)).toBeNull();

    const done = await c.target().push(docs.reversal, mayExist);
    expect(done.remoteIds).toEqual([`void:Payment:${id}`]);
    expect(paymentWrites(c.realmId, from)).toEqual(['update', 'update+void']);
    expect(double.isVoided(c.realmId, 'Payment', id)).toBe(true);
    const note = String(double.get(c.realmId, 'Payment', id)?.PrivateNote);
    expect(note.split(`booksync key=${docs.reversal.key} `)).toHaveLength(2);
  });
});
