import { keyPrefix } from '../src/ledger/entry-key.js';
import { paymentLinkEntries, paymentLinkEntryKinds } from '../src/ledger/mapping/index.js';
import { bookingReport } from '../src/ledger/reports.js';
import { syncEntries } from '../src/ledger/sync.js';
import type { PaymentLink } from '../src/service/schemas/index.js';
import { type ActivityDependencies, accountingDate, activityLogger, linkBookingOptions } from './context.js';
import { translatingFailures } from './failures.js';
import { syncInvoiceBooks } from './invoice-books.js';
import type {
  LinkWriteResult,
  PaymentLinkActivities,
  PaymentLinkSyncResult,
  RecordLinkDebitMemoInput,
  RecordLinkExternalPaymentInput,
  SyncPaymentLinkInput,
  VoidLinkDebitMemoInput,
  VoidLinkExternalPaymentInput,
} from './payment-link-contract.js';

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
  log.info(
    {
      reason,
      status: link.status,
      posted: result.posted,
      reversed: result.reversed,
      ...(invoice.posted.length ? { invoicePosted: invoice.posted } : {}),
    },
    result.posted.length + result.reversed.length > 0
      ? 'payment link booked'
      : 'payment link already in the books',
  );
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

export function createPaymentLinkActivities(deps: ActivityDependencies): PaymentLinkActivities {
  return {
    /** 4.2 with the workflow's deterministic reference: a retry returns the existing record (D14). */
    async recordLinkExternalPayment(input: RecordLinkExternalPaymentInput): Promise<LinkWriteResult> {
      return translatingFailures(async () => {
        const { paymentLinkId, commandId, amountCents, paidAt, externalReferenceId } = input;
        const log = activityLogger(deps, { paymentLinkId, commandId, externalReferenceId });
        const { externalPayment, paymentLink } = await deps.service.recordExternalPayment(paymentLinkId, {
          amountCents,
          paidAt,
          externalReferenceId,
        });
        log.info(
          { externalPaymentId: externalPayment.id, amountCents, linkStatus: paymentLink.status },
          'external payment recorded at the service',
        );
        return { recordId: externalPayment.id, amountCents, linkStatus: paymentLink.status };
      });
    },

    /** D15 with the workflow's deterministic reference (same amount and description: the same memo). */
    async recordLinkDebitMemo(input: RecordLinkDebitMemoInput): Promise<LinkWriteResult> {
      return translatingFailures(async () => {
        const { paymentLinkId, commandId, amountCents, description, externalReferenceId } = input;
        const log = activityLogger(deps, { paymentLinkId, commandId, externalReferenceId });
        const { debitMemo, paymentLink } = await deps.service.recordDebitMemo(paymentLinkId, {
          amountCents,
          description,
          externalReferenceId,
        });
        log.info(
          { debitMemoId: debitMemo.id, amountCents, linkStatus: paymentLink.status },
          'debit memo recorded at the service',
        );
        return { recordId: debitMemo.id, amountCents, linkStatus: paymentLink.status };
      });
    },

    /** D12, idempotent. */
    async voidLinkExternalPayment(input: VoidLinkExternalPaymentInput): Promise<LinkWriteResult> {
      return translatingFailures(async () => {
        const { paymentLinkId, commandId, externalPaymentId } = input;
        const log = activityLogger(deps, { paymentLinkId, commandId, externalPaymentId });
        const { externalPayment, paymentLink } = await deps.service.voidExternalPayment(
          paymentLinkId,
          externalPaymentId,
        );
        log.info({ linkStatus: paymentLink.status }, 'external payment voided at the service');
        return {
          recordId: externalPayment.id,
          amountCents: externalPayment.amountCents,
          linkStatus: paymentLink.status,
        };
      });
    },

    /** D15 void, idempotent. */
    async voidLinkDebitMemo(input: VoidLinkDebitMemoInput): Promise<LinkWriteResult> {
      return translatingFailures(async () => {
        const { paymentLinkId, commandId, debitMemoId } = input;
        const log = activityLogger(deps, { paymentLinkId, commandId, debitMemoId });
        const { debitMemo, paymentLink } = await deps.service.voidDebitMemo(paymentLinkId, debitMemoId);
        log.info({ linkStatus: paymentLink.status }, 'debit memo voided at the service');
        return { recordId: debitMemo.id, amountCents: debitMemo.amountCents, linkStatus: paymentLink.status };
      });
    },

    async syncPaymentLink(input: SyncPaymentLinkInput): Promise<PaymentLinkSyncResult> {
      return translatingFailures(() => syncPaymentLinkBooks(deps, input));
    },
  };
}
