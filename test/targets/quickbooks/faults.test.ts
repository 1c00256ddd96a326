import { describe, expect, it } from 'vitest';
import { TargetUnavailableError } from '../../../src/targets/errors.js';
import {
  faultError,
  faultKind,
  isClosedPeriod,
  isDepositedRefusal,
  isRefusedInPlace,
  isStaleObject,
} from '../../../src/targets/quickbooks/faults.js';

// QBO's Faults as the adapter reads them: by each Error's Message first, then by its code, since one code
// means two things (packages/vendor-doubles/src/quickbooks/README.md, rule books-closed).

const fault = (Message: string, Detail: string, code: string) =>
  faultError(
    400,
    JSON.stringify({ Fault: { type: 'ValidationFault', Error: [{ Message, Detail, code }] } }),
    null,
  );

describe('QuickBooks Faults', () => {
  it('reads a 5010 "Account Period Closed" as closed books, not a stale SyncToken', () => {
    // As QBO answered a Bill and an Invoice create into closed books (routablehq/python-quickbooks#208).
    const closed = fault('Account Period Closed', 'The account period has closed. {1}', '5010');
    expect(faultKind(closed)).toBe('closed-period');
    expect(isClosedPeriod(closed)).toBe(true);
    expect(isStaleObject(closed)).toBe(false);
    // Intuit's list: 6200 (6210 with a closing password).
    const listed = fault('Account Period Closed, Cannot Update Through Services API', 'closed', '6200');
    expect(faultKind(listed)).toBe('closed-period');
  });

  it('reads the Stale Object Error (5010) as stale, and a code alone when the Message names nothing known', () => {
    const stale = fault(
      'Stale Object Error',
      'Stale Object Error : You and another user were working on the same thing.',
      '5010',
    );
    expect(isStaleObject(stale)).toBe(true);
    expect(isClosedPeriod(stale)).toBe(false);
    expect(faultKind(fault('Some other wording', '', '5010'))).toBe('stale-object');
    expect(faultKind(fault('Some other wording', '', '6210'))).toBe('closed-period');
    const deposited = fault('Deposited Transaction cannot be changed', 'on a deposit', '6540');
    expect(isDepositedRefusal(deposited)).toBe(true);
    expect(faultKind(fault('A business validation error has occurred', 'x', '6000'))).toBeNull();
    // An outage is no refusal of any kind.
    const outage = faultError(503, '<html>down</html>', null);
    expect(outage).toBeInstanceOf(TargetUnavailableError);
    expect(faultKind(outage)).toBeNull();
  });

  it('reads a void refused because money moved on (deposited, payments applied) by its words, then 6540', () => {
    // As integrators meet it: Message "Deposited Transaction cannot be changed", Detail "This transaction has
    // been deposited." (support.clio.com, QuickBooks Online Error Code 6540).
    const deposited = fault(
      'Deposited Transaction cannot be changed',
      'This transaction has been deposited.',
      '6540',
    );
    expect(isDepositedRefusal(deposited)).toBe(true);
    expect(isRefusedInPlace(deposited)).toBe(true);
    expect(
      isRefusedInPlace(fault('Business Validation Error', 'This transaction has been deposited.', '6000')),
    ).toBe(true);
    expect(isRefusedInPlace(fault('Some other words', '', '6540'))).toBe(true);
    const applied = fault(
      'Business Validation Error',
      'You cannot void an invoice that has payments applied to it. Remove the payments first.',
      '6000',
    );
    expect(faultKind(applied)).toBe('applied');
    expect(isRefusedInPlace(applied)).toBe(true);
    // The generic 6000 alone says nothing of why: not taken for a refusal in place.
    expect(isRefusedInPlace(fault('Business Validation Error', 'Something else entirely.', '6000'))).toBe(
      false,
    );
  });
});
