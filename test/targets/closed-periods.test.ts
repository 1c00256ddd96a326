import { describe, expect, it } from 'vitest';
import {
  closedPeriodNote,
  datedOpen,
  LockReader,
  laterOf,
  openDate,
  reversesInPlace,
} from '../../src/targets/closed-periods.js';
import { closedPeriodDocuments } from './closed-period-documents.js';

describe('closed periods: what every adapter decides the same way', () => {
  it('takes the later lock and dates a document on or before it the day after', () => {
    expect(laterOf(null, null)).toBeNull();
    expect(laterOf('2026-01-31', null)).toBe('2026-01-31');
    expect(laterOf('2026-01-31', '2026-02-28')).toBe('2026-02-28');
    expect(openDate('2026-01-31', '2026-01-31')).toBe('2026-02-01');
    expect(openDate('2026-02-01', '2026-01-31')).toBe('2026-02-01');
    expect(openDate('2025-12-31', '2026-12-31')).toBe('2027-01-01');
    expect(openDate('2026-01-15', null)).toBe('2026-01-15');
  });

  it('keeps a moved document’s own date in its description and note', () => {
    const { late, invoice } = closedPeriodDocuments();
    const moved = datedOpen(late, '2026-01-31');
    expect(moved.date).toBe('2026-02-01');
    expect(moved.description).toContain('dated 2026-01-20 in booksync; books closed through 2026-01-31');
    expect(closedPeriodNote(moved)).toBe('(dated 2026-01-20 in booksync; books closed through 2026-01-31)');
    expect(datedOpen(invoice, '2025-12-31')).toBe(invoice);
    expect(closedPeriodNote(invoice)).toBeNull();
  });

  it('voids in place only within one open month', () => {
    const docs = closedPeriodDocuments();
    expect(reversesInPlace(docs.februaryReversed, '2026-01-31')).toBe(true);
    expect(reversesInPlace(docs.februaryReversed, null)).toBe(true);
    // Across months, even with nothing closed; into a closed period, never.
    expect(reversesInPlace(docs.januaryReversed, null)).toBe(false);
    expect(reversesInPlace(docs.januaryReversed, '2026-01-31')).toBe(false);
    expect(reversesInPlace({ ...docs.januaryReversed, date: '2026-01-25' }, '2026-01-31')).toBe(false);
    expect(reversesInPlace({ ...docs.januaryReversed, date: '2026-01-25' }, null)).toBe(true);
    // Without the ledger's date, the target's date of the original decides; without either, never in place.
    const unknown = { ...docs.februaryReversed, originalDate: undefined };
    expect(reversesInPlace(unknown, null, '2026-02-05')).toBe(true);
    expect(reversesInPlace(unknown, null)).toBe(false);
  });

  it('reads a lock once for pushes at once, again after its time or when told', async () => {
    let reads = 0;
    let now = 0;
    const reader = new LockReader(
      async () => {
        reads++;
        return '2026-01-31';
      },
      1_000,
      () => now,
    );
    await Promise.all([reader.get(), reader.get(), reader.get()]);
    expect(reads).toBe(1);
    now = 999;
    await reader.get();
    expect(reads).toBe(1);
    now = 1_000;
    await reader.get();
    expect(reads).toBe(2);
    reader.forget();
    expect(await reader.get()).toBe('2026-01-31');
    expect(reads).toBe(3);
  });
});
