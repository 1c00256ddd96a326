import type { PaymentLink } from '@booksync/service-contract/schemas/index';
import { keyPrefix } from '../../ledger/entry-key.js';
import { paymentLinkEntries, paymentLinkEntryKinds } from '../../ledger/mapping/index.js';
import { bookingReport } from '../../ledger/reports.js';
import { syncEntries } from '../../ledger/sync.js';
import {
  type ActivityDependencies,
  accountingDate,
  activityLogger,
  linkBookingOptions,
  logBooked,
} from '../in-activity/context.js';
import { translatingFailures } from '../in-activity/failures.js';
import { syncInvoiceBooks } from '../in-activity/invoice-books.js';
import type {
  LinkWriteResult,
  PaymentLinkActivities,
  PaymentLinkSyncResult,
  RecordLinkDebitMemoInput,
  RecordLinkExternalPaymentInput,
  SyncPaymentLinkInput,
  VoidLinkDebitMemoInput,
  VoidLinkExternalPaymentInput,
} from './activities-contract.js';

/**
 * Fetches the link and makes the books hold exactly its live external payments (those not applying a check
 * deposit) and debit memos. A record voided at the service disappears from the link, so its entry is
 * reversed; a record made elsewhere (the dashboard) is picked up. Shared by the payment-link workflow and
 * whatever else needs a link mirrored (reconciliation).
 */
export async function syncPaymentLinkBooks(
  deps: ActivityDependencies,
  { paymentLinkId, reason, commandIds }: SyncPaymentLinkInput,
): Promise<PaymentLinkSyncResult> {
  const log = activityLogger(deps, { paymentLinkId, commandIds });
  const link = await deps.service.getPaymentLink(paymentLinkId);
  const invoice = await syncInvoiceBooks(deps, link);
  const result = await syncEntries(
    deps.ledger,
    paymentLinkEntries(link, linkBookingOptions(deps)),
    { paymentLinkId },
    {
      kinds: paymentLinkEntryKinds,
      date: accountingDate(deps),
      reason: `${reason}: no longer on payment link ${paymentLinkId}`,
    },
  );
  const report = bookingReport(await deps.ledger.entriesFor({ paymentLinkId }));
  const owned = new Set<string>(paymentLinkEntryKinds);
  const booked = report.items
    .filter((item) =>
      owned.has(keyPrefix(item.status === 'reversal' ? (item.related ?? item.key) : item.key)),
    )
    .map((item) => ({
      key: item.key,
      status: item.status,
      amountCents: item.lines.reduce((sum, l) => sum + Math.max(l.amountCents, 0), 0),
    }));
  logBooked(log, 'payment link', result, {
    reason,
    status: link.status,
    ...(invoice.posted.length ? { invoicePosted: invoice.posted } : {}),
  });
  return summarize(link, booked, result.posted, result.reversed);
}

function summarize(
  link: PaymentLink,
  booked: PaymentLinkSyncResult['booked'],
  posted: string[],
  reversed: string[],
): PaymentLinkSyncResult {
  return {
    paymentLinkId: link.id,
    status: link.status,
    requestedAmountCents: link.requestedAmountCents,
    completedAmountCents: link.completedAmountCents,
    debitMemoAmountCents: link.debitMemoAmountCents,
    customerId: link.customerId ?? null,
    externalPayments: link.externalPayments.map((p) => ({
      id: p.id,
      amountCents: p.amountCents,
      date: p.paidAt,
      externalReferenceId: p.externalReferenceId ?? null,
      appliesCheckDeposit: p.serviceBankingTransferId != null,
    })),
    debitMemos: link.debitMemos.map((m) => ({
      id: m.id,
      amountCents: m.amountCents,
      date: m.createdAt,
      externalReferenceId: m.externalReferenceId ?? null,
      description: m.description,
    })),
    booked,
    posted,
    reversed,
  };
}

/**
 * One write at the service on a link (a record or a void), logged with its ids and amounts as "<what> at the
 * service" and answered with the record and the link's status after it. A memo's description is the
 * customer's text: it stays out of the log.
 */
function linkWrite(
  deps: ActivityDependencies,
  input: { paymentLinkId: string; commandId: string; description?: string },
  what: string,
  write: () => Promise<LinkWriteResult>,
): Promise<LinkWriteResult> {
  return translatingFailures(async () => {
    const { description: _customerText, ...fields } = input;
    const log = activityLogger(deps, fields);
    const result = await write();
    log.info(result, `${what} at the service`);
    return result;
  });
}

/** A voided record's answer: the amount the record had. */
function writeResult(record: { id: string; amountCents: number }, link: { status: string }): LinkWriteResult {
  return { recordId: record.id, amountCents: record.amountCents, linkStatus: link.status };
}

export function createPaymentLinkActivities(deps: ActivityDependencies): PaymentLinkActivities {
  return {
    /** 4.2 with the workflow's deterministic reference: a retry returns the existing record (decision “Reference rule”). */
    async recordLinkExternalPayment(input: RecordLinkExternalPaymentInput): Promise<LinkWriteResult> {
      const { paymentLinkId, amountCents, paidAt, externalReferenceId } = input;
      return linkWrite(deps, input, 'external payment recorded', async () => {
        const written = { amountCents, paidAt, externalReferenceId };
        const { externalPayment, paymentLink } = await deps.service.recordExternalPayment(
          paymentLinkId,
          written,
        );
        return { recordId: externalPayment.id, amountCents, linkStatus: paymentLink.status };
      });
    },

    /** Decision “Debit memos” with the workflow's deterministic reference (same amount and description: the same memo). */
    async recordLinkDebitMemo(input: RecordLinkDebitMemoInput): Promise<LinkWriteResult> {
      const { paymentLinkId, amountCents, description, externalReferenceId } = input;
      return linkWrite(deps, input, 'debit memo recorded', async () => {
        const written = { amountCents, description, externalReferenceId };
        const { debitMemo, paymentLink } = await deps.service.recordDebitMemo(paymentLinkId, written);
        return { recordId: debitMemo.id, amountCents, linkStatus: paymentLink.status };
      });
    },

    /** Decision “Void an external payment”, idempotent. */
    async voidLinkExternalPayment(input: VoidLinkExternalPaymentInput): Promise<LinkWriteResult> {
      const { paymentLinkId, externalPaymentId } = input;
      return linkWrite(deps, input, 'external payment voided', async () => {
        const { externalPayment, paymentLink } = await deps.service.voidExternalPayment(
          paymentLinkId,
          externalPaymentId,
        );
        return writeResult(externalPayment, paymentLink);
      });
    },

    /** Decision “Debit memos” void, idempotent. */
    async voidLinkDebitMemo(input: VoidLinkDebitMemoInput): Promise<LinkWriteResult> {
      const { paymentLinkId, debitMemoId } = input;
      return linkWrite(deps, input, 'debit memo voided', async () => {
        const { debitMemo, paymentLink } = await deps.service.voidDebitMemo(paymentLinkId, debitMemoId);
        return writeResult(debitMemo, paymentLink);
      });
    },

    async syncPaymentLink(input: SyncPaymentLinkInput): Promise<PaymentLinkSyncResult> {
      return translatingFailures(() => syncPaymentLinkBooks(deps, input));
    },
  };
}
