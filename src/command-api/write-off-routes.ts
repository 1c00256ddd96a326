import { ServiceError, ServiceNotFoundError } from '@booksync/service-contract/errors';
import type { PaymentLink } from '@booksync/service-contract/schemas/index';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  type PaymentLinkWorkflowInput,
  paymentLinkWorkflowId,
  paymentLinkWorkflowType,
  syncPaymentLinkSignal,
} from '../flows/payment-link/contract.js';
import { IngressError } from '../ingress/errors.js';
import { Accounts } from '../ledger/chart-of-accounts.js';
import type { BookedEntry, LedgerPort } from '../ledger/ledger-port.js';
import { invoiceAmountCents, invoiceBooked, invoiceLineCents } from '../ledger/mapping/invoice.js';
import { formatUsd } from '../ledger/money.js';
import { type WriteOff, WriteOffConflictError, writtenOffCents } from '../ledger/write-offs.js';
import type { ServiceClient } from '../service/client.js';
import { commandRoutes as routes } from './contract.js';
import { keyedCommandId } from './idempotency.js';
import { schemaOf } from './openapi.js';
import type { CommandAnswer } from './outcome.js';

/** What a write-off reads and writes: the ledger's store (the intent, the link's entries) and the service. */
export interface WriteOffSources {
  ledger: Pick<LedgerPort, 'entriesFor' | 'recordWriteOff' | 'withdrawWriteOff' | 'writeOffsFor'>;
  service: Pick<ServiceClient, 'getPaymentLink' | 'updatePaymentLink'>;
}

export interface WriteOffRoutesOptions {
  /** Absent (an ingress apart from the books or without SERVICE_API_KEY): the route answers 503. */
  sources?: WriteOffSources;
}

/**
 * The business writes off what a payment link still owes (an uncollectible receivable, booked to Bad Debt):
 * the link read at the service, the write-off recorded in the ledger's store, then the link's own amount
 * lowered by what remains (4.3: requestedAmountCents is the own amount, without the debit memos). Whichever
 * flow books the lowering (the link's workflow, signalled here; the webhook; the reconciliation; a resync)
 * finds the write-off recorded and books Dr Bad Debt / Cr Accounts Receivable. Refused, with nothing
 * written: an unknown link (404), a link with nothing left to pay, a reusable link, a link whose unpaid part
 * is in its debit memos, a link whose invoice is not booked yet, or one with an earlier write-off not booked
 * yet (409).
 */
export const writeOffRoutes: FastifyPluginAsyncZod<WriteOffRoutesOptions> = async (app, options) => {
  app.post(
    routes.writeOffLink.url,
    { schema: schemaOf('writeOffLink'), config: { commandKey: { route: 'writeOffLink', withBody: true } } },
    async (request, reply) => {
      const sources = servedSources(options.sources);
      const paymentLinkId = request.params.id;
      const writeOffId = keyedCommandId(request);
      const reason = request.body?.reason ?? null;
      const answer = await writeOff(sources, request.log, { paymentLinkId, writeOffId, reason });
      await syncLink(app.workflowCalls, request, paymentLinkId, writeOffId);
      return reply.sendOutcome(answer);
    },
  );
};

/** The ledger's store and the service a write-off needs; 503 on an ingress apart from the books. */
export function servedSources<S>(sources: S | undefined): S {
  if (sources) return sources;
  throw new IngressError(
    503,
    'write_offs_not_served',
    "this ingress has no ledger store or service for write-offs (run it beside the books: 'booksync start', or 'booksync ingress' with the ledger's store and SERVICE_API_KEY)",
  );
}

async function writeOff(
  { ledger, service }: WriteOffSources,
  log: FastifyBaseLogger,
  asked: { paymentLinkId: string; writeOffId: string; reason: string | null },
): Promise<CommandAnswer> {
  const { paymentLinkId, writeOffId, reason } = asked;
  const link = await readLink(service, paymentLinkId);
  const [booked, writeOffs] = await Promise.all([
    ledger.entriesFor({ paymentLinkId }),
    ledger.writeOffsFor(paymentLinkId),
  ]);
  const again = writeOffs.find((w) => w.id === writeOffId && w.withdrawnAt === null);
  // This very command again (its answer lost): its lowering may have reached the service already.
  if (again && nothingLeft(link)) return writtenOff(link, again, false);
  const amountCents = refusalOrRemainder(link, booked, writeOffs, writeOffId);
  const ownAfter = invoiceAmountCents(link) - amountCents;
  let recorded: WriteOff;
  try {
    ({ writeOff: recorded } = await ledger.recordWriteOff({
      id: writeOffId,
      paymentLinkId,
      amountCents,
      reason,
    }));
  } catch (error) {
    if (!(error instanceof WriteOffConflictError)) throw error;
    throw new IngressError(
      409,
      'write_off_changed',
      `this write-off was recorded for another amount or reason (what the link owes changed since): send a new Idempotency-Key to write off what it owes now`,
    );
  }
  let lowered: PaymentLink;
  try {
    lowered = await service.updatePaymentLink(paymentLinkId, { requestedAmountCents: ownAfter });
  } catch (error) {
    throw await lowerFailed(service, ledger, log, recorded, link, error);
  }
  log.info(
    { paymentLinkId, writeOffId, amountCents, ownAmountCents: ownAfter },
    'payment link written off at the service',
  );
  return writtenOff(lowered, recorded, true);
}

/** The link at the service: 404 when it is unknown there, the service's failure otherwise. */
export async function readLink(
  service: Pick<ServiceClient, 'getPaymentLink'>,
  paymentLinkId: string,
): Promise<PaymentLink> {
  try {
    return await service.getPaymentLink(paymentLinkId);
  } catch (error) {
    if (error instanceof ServiceNotFoundError) {
      throw new IngressError(
        404,
        'payment_link_not_found',
        `payment link ${paymentLinkId} is unknown at the service`,
      );
    }
    throw serviceFailure(error, `payment link ${paymentLinkId} could not be read at the service`);
  }
}

/**
 * What the write-off gives up (what remains to pay), or the refusal: nothing remains, a reusable link, an
 * unpaid part the own amount cannot take (debit memos), an invoice not in the books yet, an earlier write-off
 * not booked yet.
 */
function refusalOrRemainder(
  link: PaymentLink,
  booked: readonly BookedEntry[],
  writeOffs: readonly WriteOff[],
  writeOffId: string,
): number {
  const name = `payment link ${link.id}`;
  const refuse = (code: string, message: string) => {
    throw new IngressError(409, code, message);
  };
  if (link.reusable)
    refuse('reusable_link', `${name} is reusable: a standing price, no invoice to write off`);
  const remaining = link.requestedAmountCents - link.completedAmountCents;
  if (remaining <= 0) {
    refuse(
      'nothing_to_write_off',
      `${name} has nothing left to pay (${formatUsd(link.completedAmountCents)} paid of ${formatUsd(link.requestedAmountCents)}): nothing to write off`,
    );
  }
  const own = invoiceAmountCents(link);
  if (remaining > own) {
    refuse(
      'debit_memos_unpaid',
      `${name} owes ${formatUsd(remaining)}, of which its own amount is ${formatUsd(own)} and the rest is in its debit memos (${formatUsd(link.debitMemoAmountCents)}): a write-off lowers the link's own amount, which cannot take off a debit memo; void the debit memos not to be collected (booksync link void-memo) and write off again`,
    );
  }
  if (!invoiceBooked(booked)) {
    refuse(
      'invoice_not_booked',
      `${name}'s invoice is not in the books yet: sync the link (booksync link sync ${link.id}) and write it off once its invoice is booked`,
    );
  }
  const earlier = writeOffs.filter((w) => w.id !== writeOffId);
  const badDebt = invoiceLineCents(booked, Accounts.BadDebt);
  if (writtenOffCents(earlier) > badDebt) {
    refuse(
      'write_off_pending',
      `${name} has an earlier write-off not booked yet: sync the link (booksync link sync ${link.id}), or retry that write-off with its own Idempotency-Key`,
    );
  }
  return remaining;
}

/** Whether nothing is left to pay on the link (where a write-off leaves it). */
function nothingLeft(link: PaymentLink): boolean {
  return link.requestedAmountCents <= link.completedAmountCents;
}

/**
 * The lowering failed. When the link is still as it was, the write-off is withdrawn (it covers nothing) and
 * the service's refusal answered; when it was lowered after all, the write-off stands; when that cannot be
 * told, the write-off stands and the caller retries with the same Idempotency-Key.
 */
async function lowerFailed(
  service: WriteOffSources['service'],
  ledger: WriteOffSources['ledger'],
  log: FastifyBaseLogger,
  recorded: WriteOff,
  before: PaymentLink,
  error: unknown,
): Promise<IngressError> {
  let now: PaymentLink | null = null;
  try {
    now = await service.getPaymentLink(before.id);
  } catch (readError) {
    log.warn({ err: readError, paymentLinkId: before.id }, 'payment link not read after a failed write-off');
  }
  if (now && invoiceAmountCents(now) === invoiceAmountCents(before)) {
    await ledger.withdrawWriteOff(recorded.id);
    log.info(
      { paymentLinkId: before.id, writeOffId: recorded.id },
      'write-off withdrawn: the link was not lowered',
    );
    return serviceFailure(
      error,
      `payment link ${before.id} was not lowered at the service; nothing was written off`,
    );
  }
  log.error({ err: error, paymentLinkId: before.id, writeOffId: recorded.id }, 'write-off outcome unknown');
  return new IngressError(
    502,
    'write_off_outcome_unknown',
    `whether payment link ${before.id} was lowered at the service is not known; the write-off stays recorded: retry with the same Idempotency-Key`,
  );
}

/** A service failure as the caller's answer: its own refusal passed through, anything else 502. */
export function serviceFailure(error: unknown, message: string): IngressError {
  if (
    error instanceof ServiceError &&
    error.status !== undefined &&
    [400, 403, 404, 409].includes(error.status)
  ) {
    return new IngressError(error.status, error.code ?? 'refused_by_service', `${message}: ${error.message}`);
  }
  return new IngressError(502, 'service_unavailable', `${message}: ${(error as Error)?.message ?? error}`);
}

function writtenOff(link: PaymentLink, writeOff: WriteOff, created: boolean): CommandAnswer {
  return {
    status: created ? 201 : 200,
    body: {
      paymentLinkId: link.id,
      writeOffId: writeOff.id,
      amountCents: writeOff.amountCents,
      reason: writeOff.reason,
      recordedAt: writeOff.recordedAt,
      created,
      link: {
        requestedAmountCents: link.requestedAmountCents,
        completedAmountCents: link.completedAmountCents,
        debitMemoAmountCents: link.debitMemoAmountCents,
        remainderCents: link.requestedAmountCents - link.completedAmountCents,
      },
    },
  };
}

/**
 * Signals the link's workflow to fetch it and book the lowering now, rather than at the next event or
 * reconciliation. Best effort: the write-off is recorded and the link lowered whatever Temporal answers.
 */
async function syncLink(
  calls: FastifyRequest['server']['workflowCalls'],
  request: FastifyRequest,
  paymentLinkId: string,
  commandId: string,
): Promise<void> {
  const workflowId = paymentLinkWorkflowId(paymentLinkId);
  const args: [PaymentLinkWorkflowInput] = [{ paymentLinkId }];
  try {
    await calls.withDeadline(request, workflowId, () =>
      calls.client.workflow.signalWithStart(paymentLinkWorkflowType, {
        ...calls.start,
        workflowId,
        args,
        signal: syncPaymentLinkSignal,
        signalArgs: [{ reason: 'write-off', commandId }],
      }),
    );
  } catch (error) {
    request.log.warn(
      { err: error, workflowId, paymentLinkId },
      'write-off not signalled to the link; the next event or reconciliation books it',
    );
  }
}
