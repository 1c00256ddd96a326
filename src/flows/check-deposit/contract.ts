// The check-deposit flow's contract, imported by its workflow, the command API and the CLI (samples-typescript's
// shared-module policy): commands, signals, updates, query, views, input and workflow id.

import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { workflowIdFor } from '../../workflow-safe/workflow-ids.js';
import type { CommandFailure } from '../in-workflow/command-failure.js';
import type { CheckDepositSyncResult, LinkAfterReturn } from './activities-contract.js';
import type { ApplicationStatus, ApplicationTotals } from './applications.js';

export interface ApplyDepositCommand {
  paymentLinkId: string;
  /** Omitted: the service's default, the smaller of the deposit's and the link's remainder (4.1). */
  amountCents?: number;
  commandId: string;
}

export interface VoidApplicationCommand {
  externalPaymentId: string;
  commandId: string;
}

export const applyDepositSignal = defineSignal<[ApplyDepositCommand]>('applyDeposit');
export const voidApplicationSignal = defineSignal<[VoidApplicationCommand]>('voidApplication');
/**
 * The same command as an Update: answers with the application once the service said yes or no (the
 * command API turns that into the HTTP answer). Validated before anything is written to history.
 */
export const applyDepositUpdate = defineUpdate<CheckApplicationView, [ApplyDepositCommand]>('apply');

/** The shape an apply must have; the command API checks the same with its schemas before it asks. */
export function validateApplyCommand(command: ApplyDepositCommand): void {
  const text = (value: unknown) => typeof value === 'string' && value.length > 0 && value.length <= 255;
  if (!command || !text(command.commandId) || !text(command.paymentLinkId)) {
    throw new Error('an apply needs a commandId and a paymentLinkId');
  }
  const amount = command.amountCents;
  if (amount !== undefined && !(Number.isSafeInteger(amount) && amount >= 1)) {
    throw new Error('amountCents must be a whole number of cents, at least 1');
  }
}

/** Voiding one application as an Update: answers with the void's record once the service said yes or no. */
export const voidApplicationUpdate = defineUpdate<VoidCommandView, [VoidApplicationCommand]>('void');

export function validateVoidCommand(command: VoidApplicationCommand): void {
  const text = (value: unknown) => typeof value === 'string' && value.length > 0 && value.length <= 255;
  if (!command || !text(command.commandId) || !text(command.externalPaymentId)) {
    throw new Error('a void needs a commandId and the externalPaymentId');
  }
}

/** Look at the deposit now instead of at the next timer. */
export const refreshDepositSignal = defineSignal<[{ reason?: string }?]>('refresh');

export type { ApplicationStatus, ApplicationTally, ApplicationTotals } from './applications.js';

import type { ReturnedCheckFeeSplit } from './returned-check-fee.js';

export interface CheckApplicationView extends Partial<CommandFailure> {
  commandId: string;
  paymentLinkId: string;
  /** As asked; null means the service's default. */
  requestedAmountCents: number | null;
  externalReferenceId: string;
  status: ApplicationStatus;
  externalPaymentId: string | null;
  /** As applied by the service. */
  amountCents: number | null;
  /** The link's remainder right after this application (requested - completed). */
  linkRemainderCents?: number;
}

export interface VoidCommandView extends Partial<CommandFailure> {
  commandId: string;
  externalPaymentId: string;
  status: 'DONE' | 'FAILED';
}

export interface ReturnedCheckFeeView extends Partial<CommandFailure> {
  paymentLinkId: string;
  amountCents: number;
  debitMemoId: string | null;
  /** Whether the link's payment-link workflow was asked to mirror the memo. */
  mirrorRequested: boolean;
}

export type CheckDepositState = 'WATCHING' | 'CLEARED' | 'RETURNED' | 'REJECTED';

export interface CheckDepositView {
  checkDepositId: string;
  state: CheckDepositState;
  serviceStatus: string | null;
  amountCents: number | null;
  unappliedAmountCents: number | null;
  /** Every live application, and the most recent settled ones (decision “Bounded check-deposit state”). */
  applications: CheckApplicationView[];
  /** Older settled applications no longer listed one by one, per status (continue-as-new bounds the list). */
  unlistedApplications: ApplicationTotals;
  /** Every application this workflow made, listed or not, per status. */
  applicationTotals: ApplicationTotals;
  voids: VoidCommandView[];
  /** Live applications at the service this workflow did not make (not booked; a person looks). */
  unknownApplicationIds: string[];
  /** After a return or rejection: each affected link as the service shows it (reopened). */
  linksAfterReturn: LinkAfterReturn[];
  returnedCheckFees: ReturnedCheckFeeView[];
  polls: number;
  /** Current gap between looks at the deposit, ms (durable timer, doubling up to the maximum). */
  pollIntervalMs: number;
  duplicatesDropped: number;
  lastSync: (Pick<CheckDepositSyncResult, 'posted' | 'reversed'> & { at: string; reason: string }) | null;
  /** The latest failure (a refused application or void, a sync that failed); cleared by a clean round. */
  lastError: string | null;
  openedAt: string;
  closedAt: string | null;
}

export interface CheckDepositWorkflowInput {
  checkDepositId: string;
  /**
   * RETURNED_CHECK_FEE_CENTS: the fee charged once per returned check, as debit memos on the links it was
   * applied to (runs started before this release charged it on each link).
   */
  returnedCheckFeeCents?: number;
  /** RETURNED_CHECK_FEE_SPLIT: how the fee falls on the links (default: all of it on the first link). */
  returnedCheckFeeSplit?: ReturnedCheckFeeSplit;
  /** First gap between looks at the deposit. Default 1 hour. */
  pollInitialMs?: number;
  /** Largest gap (the gap doubles after each look that found nothing new). Default 1 day. */
  pollMaxMs?: number;
  /** Carried through continue-as-new (decision “Bounded check-deposit state”: bounded; the rest as unlistedApplications). */
  applications?: CheckApplicationView[];
  unlistedApplications?: ApplicationTotals;
  seenCommandIds?: string[];
  pollIntervalMs?: number;
}

export const checkDepositViewQuery = defineQuery<CheckDepositView>('view');

/** Marks runs that carry a bounded applications list through continue-as-new (decision “Bounded check-deposit state”). */
export const boundedApplicationsPatch = 'check-deposit-bounded-applications';

/** The workflow's type: everything that starts or signals it by name uses this (never a literal). */
export const checkDepositWorkflowType = 'checkDeposit';

export function checkDepositWorkflowId(checkDepositId: string): string {
  return workflowIdFor(checkDepositWorkflowType, checkDepositId);
}
