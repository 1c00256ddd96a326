import type { AppliedAnswer, LinkAnswer, PendingAnswer, VoidedAnswer } from '../command-api/contract.js';
import { formatUsd } from '../ledger/money.js';

// One line per command outcome for the person at the terminal (`--json` prints the whole answer instead).

const isPending = <T extends object>(body: T | PendingAnswer): body is PendingAnswer =>
  (body as { status?: unknown }).status === 'PENDING';

/** A 202: the command is in, its outcome not known yet. */
function pendingLine(body: PendingAnswer): string {
  return `sent (command ${body.commandId}); the service has not answered yet: its outcome is at ${body.outcome}`;
}

export function applyLine(body: AppliedAnswer | PendingAnswer): string {
  if (isPending(body)) return pendingLine(body);
  const a = body.application;
  const owes =
    a.linkRemainderCents === undefined
      ? ''
      : `; ${a.paymentLinkId} still owes ${formatUsd(a.linkRemainderCents)}`;
  return `applied ${formatUsd(a.amountCents ?? 0)} to ${a.paymentLinkId} (external payment ${a.externalPaymentId})${owes}`;
}

export function voidLine(body: VoidedAnswer | PendingAnswer): string {
  if (isPending(body)) return pendingLine(body);
  return `voided application ${body.void.externalPaymentId}; the books reverse it`;
}

const done: Record<string, string> = {
  recordExternalPayment: 'recorded external payment',
  recordDebitMemo: 'added debit memo',
  voidExternalPayment: 'voided external payment',
  voidDebitMemo: 'voided debit memo',
};

export function linkLine(body: LinkAnswer | PendingAnswer, linkId: string): string {
  if (isPending(body)) return pendingLine(body);
  const remainder = body.link?.remainderCents;
  const owes =
    remainder === null || remainder === undefined ? '' : `; ${linkId} owes ${formatUsd(remainder)}`;
  return `${done[body.result.kind] ?? body.result.kind} ${body.result.recordId ?? ''} on ${linkId}${owes}`;
}
