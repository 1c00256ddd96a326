import { adminToken, type Harness, startHarness } from '@booksync/emulator/harness';
import { SandboxClient } from '@booksync/emulator/sandbox-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CloseCertificate } from '../../src/close/certificate.js';
import type { ClosePeriod } from '../../src/close/close-input.js';
import { closeDemoMonth, dayStartsAt, monthEnd } from '../../src/demo/month-close.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';

// The demo's month close when it cannot close: a failing certificate leaves the month open and says what it
// names (never forced), and an emulator whose clock cannot be moved leaves it open with one line. The real
// emulator and a real ledger; the certificate is given (the periodClose workflow's, tested in test/close and
// end to end through `booksync start` in test/cli/readme-main-command.test.ts), so the decision around it is
// what is tested.

const failing = (period: ClosePeriod) =>
  ({
    ...period,
    passes: false,
    problems: [
      'payment pay_1 (2026-11-05): MISSING: no entry',
      'receivable of pl_1: books 0, service 500.00',
    ],
    counts: {
      objects: 3,
      BOOKED: 2,
      SKIPPED: 0,
      MISSING: 1,
      DUPLICATE: 0,
      AMOUNT_DIFFERS: 0,
      entries: 4,
      orphans: 0,
    },
    documentCounts: { receivables: { agree: 1, differ: 1 }, payables: { agree: 0, differ: 0 } },
    balances: [{ ok: true }, { ok: false }],
  }) as unknown as CloseCertificate;

describe("the demo's month close", () => {
  let harness: Harness;
  let ledger: EmbeddedLedger;
  let lines: string[];
  beforeEach(async () => {
    harness = await startHarness();
    ledger = EmbeddedLedger.open();
    lines = [];
  });
  afterEach(async () => {
    ledger.close();
    await harness.close();
  });

  const parties = (sandbox: SandboxClient, calls: string[]) => ({
    sandbox,
    ledger,
    timeZone: 'America/Los_Angeles',
    reconcile: async () => {
      calls.push('reconcile');
      return { entriesBooked: 0, problems: [] };
    },
    settle: async () => {
      calls.push('settle');
    },
    targets: async () => [{ target: 'quickbooks', pending: 0, failed: 0 }],
    certify: async (period: ClosePeriod) => {
      calls.push(`certify ${period.from} ${period.to}`);
      return failing(period);
    },
    progress: (line: string) => lines.push(line),
  });

  it('knows where a month ends and when a day starts in a zone', () => {
    expect(monthEnd('2026-11-27')).toBe('2026-11-30');
    expect(monthEnd('2028-02-03')).toBe('2028-02-29');
    expect(monthEnd('2026-12-01')).toBe('2026-12-31');
    expect(new Date(dayStartsAt('2026-12-01', 'America/Los_Angeles')).toISOString()).toBe(
      '2026-12-01T08:00:00.000Z',
    );
    expect(new Date(dayStartsAt('2026-12-01', 'Asia/Kolkata')).toISOString()).toBe(
      '2026-11-30T18:30:00.000Z',
    );
    expect(new Date(dayStartsAt('2026-12-01', 'UTC')).toISOString()).toBe('2026-12-01T00:00:00.000Z');
  });

  it('a failing certificate: the month stays open, what it names is printed, nothing is forced', async () => {
    const sandbox = new SandboxClient({ baseUrl: harness.baseUrl, apiKey: harness.keys.full, adminToken });
    const startedIn = new Date((await sandbox.clock()).now);
    const calls: string[] = [];
    const outcome = await closeDemoMonth(parties(sandbox, calls));

    const zoneDay = (time: number) =>
      new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Los_Angeles' }).format(new Date(time));
    const through = monthEnd(zoneDay(startedIn.getTime()));
    const next = zoneDay(Date.parse((await sandbox.clock()).now));
    expect(next > through && next.endsWith('-01'), next).toBe(true);
    expect(outcome).toMatchObject({ closed: false, through });
    expect(outcome.why).toMatch(/certificate fails \(2 problems\); the demo never forces a close/);
    expect(calls).toEqual(['reconcile', 'settle', `certify ${through.slice(0, 8)}01 ${through}`]);
    expect(await ledger.booksClosedThrough()).toBeNull();
    expect(await ledger.booksClosings()).toEqual([]);
    const text = lines.join('\n');
    expect(text).toContain(`the emulator's clock moved to ${next}`);
    expect(text).toContain('every entry pushed to quickbooks');
    expect(text).toContain(`certificate ${through.slice(0, 8)}01 to ${through}: FAILS`);
    expect(text).toContain('objects 3: 2 booked, 0 skipped, 1 missing; entries 4, orphans 0');
    expect(text).toContain('payment pay_1 (2026-11-05): MISSING: no entry');
    expect(text).toContain('stays open');
    expect(text).not.toContain('books closed through');
  });

  it('pushes that do not settle in time are reported, and the certificate is still made (it names them)', async () => {
    const sandbox = new SandboxClient({ baseUrl: harness.baseUrl, apiKey: harness.keys.full, adminToken });
    const calls: string[] = [];
    let reads = 0;
    const outcome = await closeDemoMonth({
      ...parties(sandbox, calls),
      pushWaitMs: 1_500,
      targets: async () => {
        reads++;
        if (reads === 1) throw new Error('database is locked');
        return [{ target: 'xero', pending: 3, failed: 1 }];
      },
    });
    expect(reads).toBeGreaterThan(1);
    expect(lines).toContain(
      '  ! xero: 3 entries still pending after 2 s, 1 failed (the certificate checks every push)',
    );
    expect(calls.at(-1)).toMatch(/^certify /);
    expect(outcome.closed).toBe(false);
  });

  it('an emulator whose clock cannot be moved (no admin token): one line, the month stays open', async () => {
    const sandbox = new SandboxClient({ baseUrl: harness.baseUrl, apiKey: harness.keys.full });
    const calls: string[] = [];
    const outcome = await closeDemoMonth(parties(sandbox, calls));
    expect(outcome.closed).toBe(false);
    expect(outcome.why).toMatch(
      /the emulator's clock could not be moved \(advanceClock needs the emulator admin token\)/,
    );
    expect(calls).toEqual([]);
    expect(lines.filter((l) => l.includes('stays open'))).toHaveLength(1);
    expect(await ledger.booksClosedThrough()).toBeNull();
  });
});
