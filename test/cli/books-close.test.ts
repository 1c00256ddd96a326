import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommandError } from '../../src/cli/command.js';
import { closeBooks, parseBooksCloseArgs, periodToClose } from '../../src/cli/commands/books.js';
import type { CloseCertificate } from '../../src/close/certificate.js';
import type { ClosePeriod } from '../../src/close/close-input.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { twoLine } from '../ledger/fixtures.js';

// `booksync books close`: refused until the period has ended and while its certificate fails (unless forced
// with a reason, which is recorded); only forward. The certificate itself is the periodClose workflow's
// (test/close); here a certificate is given, so the decision around it is what is tested.

const certificate = (passes: boolean, problems: string[] = []) =>
  ({ passes, problems }) as unknown as CloseCertificate;

describe('booksync books close', () => {
  let ledger: EmbeddedLedger;
  const asked: ClosePeriod[] = [];
  const certify = (result: CloseCertificate) => async (period: ClosePeriod) => {
    asked.push(period);
    return result;
  };
  beforeEach(() => {
    ledger = EmbeddedLedger.open();
    asked.length = 0;
  });
  afterEach(() => ledger.close());

  it('parses its arguments and refuses bad ones with one line', () => {
    expect(parseBooksCloseArgs(['--through', '2026-01-31'])).toEqual({
      through: '2026-01-31',
      force: false,
      reason: null,
      timeoutSeconds: 600,
    });
    expect(() => parseBooksCloseArgs([])).toThrow(/give --through/);
    expect(() => parseBooksCloseArgs(['--through', '2026-02-30'])).toThrow(/YYYY-MM-DD day/);
    expect(() => parseBooksCloseArgs(['--through', '2026-01-31', '--force'])).toThrow(
      /--force needs --reason/,
    );
  });

  it('certifies from the day after the last closing, else from the first of the month', () => {
    expect(periodToClose(null, '2026-01-31')).toEqual({ from: '2026-01-01', to: '2026-01-31' });
    expect(periodToClose('2026-01-31', '2026-02-28')).toEqual({ from: '2026-02-01', to: '2026-02-28' });
  });

  it('closes when the certificate passes; entries dated in January are then booked in February', async () => {
    const outcome = await closeBooks(
      ledger,
      parseBooksCloseArgs(['--through', '2026-01-31']),
      '2026-02-03',
      certify(certificate(true)),
    );
    expect(outcome.exitCode).toBe(0);
    expect(asked).toEqual([{ from: '2026-01-01', to: '2026-01-31' }]);
    expect(await ledger.booksClosedThrough()).toBe('2026-01-31');
    expect((await ledger.booksClosings())[0]).toMatchObject({
      reason: 'certificate of 2026-01-01 to 2026-01-31 passed',
      forced: false,
    });
    const { entry } = await ledger.post(twoLine('payment:late', 100, { date: '2026-01-31' }));
    expect(entry.date).toBe('2026-02-01');
    // Again: already closed, no second certificate.
    expect(
      (
        await closeBooks(
          ledger,
          parseBooksCloseArgs(['--through', '2026-01-31']),
          '2026-02-03',
          certify(certificate(true)),
        )
      ).lines,
    ).toEqual(['the books are already closed through 2026-01-31']);
    expect(asked).toHaveLength(1);
  });

  it('a failing certificate keeps the books open (exit 2), unless forced with a recorded reason', async () => {
    const failing = certificate(false, ['payment p1 (2026-01-05): MISSING: no entry']);
    const refused = await closeBooks(
      ledger,
      parseBooksCloseArgs(['--through', '2026-01-31']),
      '2026-02-03',
      certify(failing),
    );
    expect(refused.exitCode).toBe(2);
    expect(refused.lines.join('\n')).toMatch(/1 problem\(s\)[\s\S]*payment p1/);
    expect(await ledger.booksClosedThrough()).toBeNull();
    const forced = await closeBooks(
      ledger,
      parseBooksCloseArgs(['--through', '2026-01-31', '--force', '--reason', 'p1 is a known test payment']),
      '2026-02-03',
      certify(failing),
    );
    expect(forced.exitCode).toBe(0);
    expect((await ledger.booksClosings())[0]).toMatchObject({
      forced: true,
      reason: 'forced with a failing certificate: p1 is a known test payment',
    });
  });

  it('refuses a period that has not ended, and a day before the last closing', async () => {
    await expect(
      closeBooks(
        ledger,
        parseBooksCloseArgs(['--through', '2026-02-03']),
        '2026-02-03',
        certify(certificate(true)),
      ),
    ).rejects.toThrow(/has not ended yet/);
    await ledger.closeBooks('2026-01-31', { reason: 'January', forced: false });
    await expect(
      closeBooks(
        ledger,
        parseBooksCloseArgs(['--through', '2026-01-15']),
        '2026-02-03',
        certify(certificate(true)),
      ),
    ).rejects.toBeInstanceOf(CommandError);
    expect(asked).toHaveLength(0);
  });
});
