import type { CheckDeposit } from '@booksync/service-contract/schemas/index';
import { baseKey } from '../../ledger/entry-key.js';
import {
  businessDay,
  checkDepositEntries,
  checkDepositEntryKinds,
  earlierCheckBooking,
} from '../../ledger/mapping/index.js';
import { bookableEntries } from '../../ledger/opening-balances.js';
import { type SyncResult, syncEntries } from '../../ledger/sync.js';
import {
  type ActivityDependencies,
  accountingDate,
  activityLogger,
  logBooked,
} from '../in-activity/context.js';
import { translatingFailures } from '../in-activity/failures.js';
import { syncInvoiceBooks } from '../in-activity/invoice-books.js';
import type {
  ApplyCheckDepositToLinkInput,
  CheckApplicationResult,
  CheckDepositActivities,
  CheckDepositSyncResult,
  ConfirmApplicationsVoidedInput,
  LinkAfterReturn,
  RecordReturnedCheckFeeInput,
  SyncCheckDepositInput,
  VoidCheckApplicationInput,
} from './activities-contract.js';

/** The description of the returned-check fee memo: fixed per deposit, so a retry is "the same memo" (decision “Debit memos”). */
export function returnedCheckFeeDescription(checkDepositId: string): string {
  return `Returned check fee (check deposit ${checkDepositId})`;
}

/**
 * Books the difference for a fetched deposit: the whole check (to Unapplied Cash), each live application
 * whose link is known (from the caller, or from what an earlier run booked), the cleared amount; a returned or rejected deposit lists no
 * application, so everything booked for it is reversed. Shared by the deposit workflow and reconciliation.
 */
export async function syncCheckDepositBooks(
  deps: ActivityDependencies,
  deposit: CheckDeposit,
  paymentLinkOf: Record<string, string>,
  reason: string,
): Promise<{ result: SyncResult; unknownApplicationIds: string[] }> {
  const log = activityLogger(deps, { checkDepositId: deposit.id });
  // Applications booked by an earlier run keep their link in the books' links.
  const linkOf: Record<string, string> = {};
  const booked = await deps.ledger.entriesFor({ checkDepositId: deposit.id });
  for (const entry of booked) {
    const { externalPaymentId, paymentLinkId } = entry.links;
    if (externalPaymentId && paymentLinkId) linkOf[externalPaymentId] = paymentLinkId;
  }
  Object.assign(linkOf, paymentLinkOf);
  const known = deposit.applications.filter((a) => linkOf[a.id] !== undefined);
  const unknownApplicationIds = deposit.applications
    .filter((a) => linkOf[a.id] === undefined)
    .map((a) => a.id);
  if (unknownApplicationIds.length > 0) {
    log.warn(
      { unknownApplicationIds },
      'deposit has applications booksync did not make; their links are unknown, so they are not booked',
    );
  }
  // A check returned or rejected books what it held before (the check, its listed applications, its
  // clearing) and then their reversals, also when booksync first sees it in its final state: the same
  // history as when followed step by step.
  const undone = deposit.status === 'RETURNED' || deposit.status === 'REJECTED';
  const held: string[] = [];
  if (undone) {
    const slots = new Set(booked.map((e) => baseKey(e.key)));
    const before = checkDepositEntries(
      { ...deposit, status: deposit.clearedAt ? 'CLEARED' : 'PROCESSING', applications: known },
      (id) => linkOf[id],
      deps.timeZone,
      earlierCheckBooking(deposit.id, booked),
    ).filter((e) => !slots.has(e.key));
    const bookable = bookableEntries(before, booked, await deps.ledger.booksOpenOn());
    if (bookable.length > 0) {
      const posted = await deps.ledger.postMany(bookable);
      posted.forEach(({ created }, i) => {
        if (created) held.push((bookable[i] as (typeof bookable)[number]).key);
      });
    }
  }
  const synced = await syncEntries(
    deps.ledger,
    checkDepositEntries(
      { ...deposit, applications: known },
      (id) => linkOf[id],
      deps.timeZone,
      // Deposits booked by the previous release keep their entries (see checkDepositEntries).
      earlierCheckBooking(deposit.id, booked),
    ),
    { checkDepositId: deposit.id },
    {
      kinds: checkDepositEntryKinds,
      // A returned check is undone on the day the bank returned it, not the day booksync noticed (a closed
      // day moves to the first open one in the ledger).
      date: deposit.returnedAt
        ? businessDay(deposit.returnedAt, deps.timeZone, `check deposit ${deposit.id} returnedAt`)
        : accountingDate(deps),
      reason: `${reason}: check deposit ${deposit.id} is ${deposit.status}`,
    },
  );
  const result = { ...synced, posted: [...held, ...synced.posted] };
  return { result, unknownApplicationIds };
}

export function createCheckDepositActivities(deps: ActivityDependencies): CheckDepositActivities {
  return {
    applyCheckDepositToLink: (input) => applyCheckDepositToLink(deps, input),
    syncCheckDeposit: (input) => syncCheckDeposit(deps, input),
    voidCheckApplication: (input) => voidCheckApplication(deps, input),
    confirmApplicationsVoided: (input) => confirmApplicationsVoided(deps, input),
    recordReturnedCheckFee: (input) => recordReturnedCheckFee(deps, input),
  };
}

/** 4.1 with a deterministic externalReferenceId: a retry returns the existing application (rule 5). */
async function applyCheckDepositToLink(
  deps: ActivityDependencies,
  input: ApplyCheckDepositToLinkInput,
): Promise<CheckApplicationResult> {
  return translatingFailures(async () => {
    const { checkDepositId, paymentLinkId, amountCents, externalReferenceId, commandId } = input;
    const log = activityLogger(deps, { checkDepositId, paymentLinkId, commandId, externalReferenceId });
    const { externalPayment, paymentLink } = await deps.service.applyCheckDeposit(checkDepositId, {
      paymentLinkId,
      externalReferenceId,
      ...(amountCents === undefined ? {} : { amountCents }),
    });
    log.info(
      {
        externalPaymentId: externalPayment.id,
        amountCents: externalPayment.amountCents,
        linkStatus: paymentLink.status,
      },
      'check deposit applied to payment link',
    );
    // The invoice the check pays, so its application settles a receivable the books already hold.
    await syncInvoiceBooks(deps, paymentLink);
    return {
      externalPaymentId: externalPayment.id,
      amountCents: externalPayment.amountCents,
      linkStatus: paymentLink.status,
      linkRemainderCents: paymentLink.requestedAmountCents - paymentLink.completedAmountCents,
    };
  });
}

/**
 * Fetches the deposit and books the difference: the whole check (Checks To Deposit / Unapplied Cash), each
 * live application (Unapplied Cash / Accounts Receivable), the whole check cleared (Operating Bank /
 * Checks To Deposit); a returned or rejected deposit
 * lists no application, so everything booked for it is reversed.
 */
async function syncCheckDeposit(
  deps: ActivityDependencies,
  { checkDepositId, paymentLinkOf, reason }: SyncCheckDepositInput,
): Promise<CheckDepositSyncResult> {
  return translatingFailures(async () => {
    const log = activityLogger(deps, { checkDepositId });
    const deposit = await deps.service.getCheckDeposit(checkDepositId);
    const { result, unknownApplicationIds } = await syncCheckDepositBooks(
      deps,
      deposit,
      paymentLinkOf,
      reason,
    );
    logBooked(log, 'check deposit', result, { status: deposit.status, reason });
    return {
      checkDepositId,
      status: deposit.status,
      amountCents: deposit.amountCents,
      unappliedAmountCents: deposit.unappliedAmountCents,
      clearedAt: deposit.clearedAt,
      returnedAt: deposit.returnedAt,
      liveApplicationIds: deposit.applications.map((a) => a.id),
      unknownApplicationIds,
      posted: result.posted,
      reversed: result.reversed,
    };
  });
}

/** Voids an application (decision “Void an external payment”) (idempotent); the next syncCheckDeposit reverses it in the books. */
async function voidCheckApplication(
  deps: ActivityDependencies,
  input: VoidCheckApplicationInput,
): Promise<CheckApplicationResult> {
  return translatingFailures(async () => {
    const { checkDepositId, paymentLinkId, externalPaymentId, commandId } = input;
    const log = activityLogger(deps, { checkDepositId, paymentLinkId, externalPaymentId, commandId });
    const { externalPayment, paymentLink } = await deps.service.voidExternalPayment(
      paymentLinkId,
      externalPaymentId,
    );
    log.info({ linkStatus: paymentLink.status }, 'check deposit application voided at the service');
    return {
      externalPaymentId,
      amountCents: externalPayment.amountCents,
      linkStatus: paymentLink.status,
    };
  });
}

/**
 * After a return or rejection the service voids the applications (4.1 rule 4): each link no longer lists
 * them and is reopened. One the service still lists is voided here (decision “Void an external payment”, idempotent) and reported.
 */
async function confirmApplicationsVoided(
  deps: ActivityDependencies,
  { checkDepositId, applications }: ConfirmApplicationsVoidedInput,
): Promise<LinkAfterReturn[]> {
  return translatingFailures(async () => {
    const byLink = new Map<string, string[]>();
    for (const a of applications) {
      byLink.set(a.paymentLinkId, [...(byLink.get(a.paymentLinkId) ?? []), a.externalPaymentId]);
    }
    const links: LinkAfterReturn[] = [];
    for (const [paymentLinkId, ids] of byLink) {
      const log = activityLogger(deps, { checkDepositId, paymentLinkId });
      let link = await deps.service.getPaymentLink(paymentLinkId);
      const stillListed = ids.filter((id) => link.externalPayments.some((p) => p.id === id));
      for (const externalPaymentId of stillListed) {
        log.warn(
          { externalPaymentId },
          'service still lists an application of a returned deposit; voiding it',
        );
        link = (await deps.service.voidExternalPayment(paymentLinkId, externalPaymentId)).paymentLink;
      }
      log.info(
        { status: link.status, completedAmountCents: link.completedAmountCents },
        'applications of the returned deposit are void; link reopened',
      );
      links.push({
        paymentLinkId,
        status: link.status,
        completedAmountCents: link.completedAmountCents,
        voidedByBooksync: stillListed,
      });
    }
    return links;
  });
}

/** A debit memo (decision “Debit memos”) with a deterministic reference and description, so a retry returns the same memo. */
async function recordReturnedCheckFee(
  deps: ActivityDependencies,
  input: RecordReturnedCheckFeeInput,
): Promise<{ debitMemoId: string }> {
  return translatingFailures(async () => {
    const { checkDepositId, paymentLinkId, amountCents, externalReferenceId } = input;
    const log = activityLogger(deps, { checkDepositId, paymentLinkId, externalReferenceId });
    const { debitMemo, paymentLink } = await deps.service.recordDebitMemo(paymentLinkId, {
      amountCents,
      description: returnedCheckFeeDescription(checkDepositId),
      externalReferenceId,
    });
    log.info(
      { debitMemoId: debitMemo.id, amountCents, linkStatus: paymentLink.status },
      'returned check fee recorded as a debit memo',
    );
    return { debitMemoId: debitMemo.id };
  });
}
