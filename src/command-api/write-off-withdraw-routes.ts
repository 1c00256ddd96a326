import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { IngressError } from '../ingress/errors.js';
import { Accounts } from '../ledger/chart-of-accounts.js';
import type { BookedEntry, LedgerPort } from '../ledger/ledger-port.js';
import { invoiceAmountCents, invoiceLineCents } from '../ledger/mapping/invoice.js';
import { formatUsd } from '../ledger/money.js';
import type { WriteOff } from '../ledger/write-offs.js';
import type { ServiceClient } from '../service/client.js';
import { commandRoutes as routes } from './contract.js';
import { schemaOf } from './openapi.js';
import { readLink, servedSources } from './write-off-routes.js';

/** What a withdrawal reads and writes: the ledger's store (the write-offs, the link's entries) and the link. */
export interface WriteOffWithdrawSources {
  ledger: Pick<LedgerPort, 'entriesFor' | 'withdrawWriteOff' | 'writeOffsFor'>;
  service: Pick<ServiceClient, 'getPaymentLink'>;
}

export interface WriteOffWithdrawRoutesOptions {
  /** Absent (an ingress apart from the books or without SERVICE_API_KEY): the route answers 503. */
  sources?: WriteOffWithdrawSources;
}

/**
 * Withdraws a write-off that never lowered the link: one whose lowering's outcome was unknown (502) and whose
 * link changed before it was retried, so the same Idempotency-Key no longer fits and a new write-off is
 * refused while it is pending. Withdrawn, it covers nothing: a later lowering is a discount. Refused (409)
 * when the books took it already (Bad Debt booked for it: it stands) or when the link has a lowering the
 * books have not taken yet (it may be this write-off's: sync the link first, and it is booked as Bad Debt).
 */
export const writeOffWithdrawRoutes: FastifyPluginAsyncZod<WriteOffWithdrawRoutesOptions> = async (
  app,
  options,
) => {
  app.post(routes.withdrawWriteOff.url, { schema: schemaOf('withdrawWriteOff') }, async (request) => {
    const sources = servedSources(options.sources);
    const { id: paymentLinkId, writeOffId } = request.params;
    const writeOffs = await sources.ledger.writeOffsFor(paymentLinkId);
    const found = writeOffs.find((w) => w.id === writeOffId);
    if (!found) {
      throw new IngressError(
        404,
        'write_off_not_found',
        `payment link ${paymentLinkId} has no write-off ${writeOffId}`,
      );
    }
    if (found.withdrawnAt !== null) return answer(found, found.withdrawnAt, false);
    const [link, booked] = await Promise.all([
      readLink(sources.service, paymentLinkId),
      sources.ledger.entriesFor({ paymentLinkId }),
    ]);
    refuseWhenBookedOrPending(found, writeOffs, booked, invoiceAmountCents(link));
    const withdrawn = await sources.ledger.withdrawWriteOff(writeOffId);
    request.log.info(
      { paymentLinkId, writeOffId, amountCents: found.amountCents },
      'write-off withdrawn by the business',
    );
    return answer(found, withdrawn?.withdrawnAt ?? new Date().toISOString(), true);
  });
};

/**
 * 409 when the books took the write-off (the Bad Debt booked for the link covers the live write-offs up to and
 * including it, oldest first), or the link's own amount at the service is below what the books invoiced (a
 * lowering not booked yet, which may be this write-off's).
 */
function refuseWhenBookedOrPending(
  writeOff: WriteOff,
  writeOffs: readonly WriteOff[],
  booked: readonly BookedEntry[],
  ownAtService: number,
): void {
  const badDebt = invoiceLineCents(booked, Accounts.BadDebt);
  const live = writeOffs.filter((w) => w.withdrawnAt === null);
  const through = live.slice(0, live.indexOf(writeOff) + 1).reduce((total, w) => total + w.amountCents, 0);
  if (through <= badDebt) {
    throw new IngressError(
      409,
      'write_off_booked',
      `write-off ${writeOff.id} is booked (${formatUsd(writeOff.amountCents)} Dr Bad Debt): it stands; a receivable collected after all is a raise of the link`,
    );
  }
  const invoiced = invoiceLineCents(booked, Accounts.AccountsReceivable);
  if (ownAtService < invoiced) {
    throw new IngressError(
      409,
      'lowering_not_booked',
      `payment link ${writeOff.paymentLinkId} was lowered at the service to ${formatUsd(ownAtService)} and the books have not taken it yet (${formatUsd(invoiced)}): sync the link (booksync link sync ${writeOff.paymentLinkId}) first; if write-off ${writeOff.id} lowered it, it is booked as Bad Debt and stands`,
    );
  }
}

function answer(writeOff: WriteOff, withdrawnAt: string, withdrawn: boolean) {
  return {
    paymentLinkId: writeOff.paymentLinkId,
    writeOffId: writeOff.id,
    amountCents: writeOff.amountCents,
    reason: writeOff.reason,
    withdrawnAt,
    withdrawn,
  };
}
