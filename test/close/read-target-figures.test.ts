import { describe, expect, it } from 'vitest';
import { readTargetFigures } from '../../src/flows/period-close/activities.js';
import { TargetRefusedError, TargetUnavailableError } from '../../src/targets/errors.js';
import type { TargetFigures } from '../../src/targets/target-figures.js';

// The close certificate reads each target's own figures; a throttled report (QuickBooks' 429 while the push of
// the same company spends its budget, seen in the two-month scenario) is read again, not a failed certificate.

const figures: TargetFigures = { asOf: '2026-11-30', balances: {}, openInvoices: {}, openBills: {} };

function reader(failures: Error[]) {
  let calls = 0;
  return {
    calls: () => calls,
    figuresAsOf: async (_day: string) => {
      calls++;
      const failure = failures.shift();
      if (failure) throw failure;
      return figures;
    },
  };
}

describe('readTargetFigures', () => {
  it('reads again after a 429, waiting its Retry-After, else 1 then 2 s', async () => {
    const waits: number[] = [];
    const r = reader([
      new TargetUnavailableError('quickbooks', 'throttled', 5_000),
      new TargetUnavailableError('quickbooks', 'outage'),
      new TargetUnavailableError('quickbooks', 'outage'),
    ]);
    expect(await readTargetFigures(r, '2026-11-30', { wait: async (ms) => waits.push(ms) })).toBe(figures);
    expect([r.calls(), waits]).toEqual([4, [5_000, 2_000, 4_000]]);
  });

  it('gives up after its attempts, and at once on anything but an unavailability', async () => {
    const down = reader(Array.from({ length: 5 }, () => new TargetUnavailableError('xero', 'outage')));
    await expect(readTargetFigures(down, '2026-11-30', { wait: async () => {} })).rejects.toThrow(
      'xero unavailable: outage',
    );
    expect(down.calls()).toBe(4);
    const refused = reader([new TargetRefusedError('xero', 'no such report')]);
    await expect(readTargetFigures(refused, '2026-11-30', { wait: async () => {} })).rejects.toThrow();
    expect(refused.calls()).toBe(1);
  });
});
