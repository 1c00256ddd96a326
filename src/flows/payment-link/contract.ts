// The payment-link flow's contract, imported by its workflow, the command API, the CLI and other flows
// (samples-typescript's shared-module policy): commands, signals, updates, query, views, input and workflow id.

import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { workflowIdFor } from '../../workflow-safe/workflow-ids.js';
import type { CommandFailure } from '../in-workflow/command-failure.js';
import type { PaymentLinkSyncResult } from './activities-contract.js';

// Commands of the business (command API, CLI) and of other flows, by signal. Each carries a commandId:
// a retried command (same Idempotency-Key) is dropped by the workflow, and the service writes carry a
// deterministic externalReferenceId derived from it, so a retried activity gets the existing record back.

export interface RecordExternalPaymentCommand {
  amountCents: number;
  /** YYYY-MM-DD */
  paidAt: string;
  /** The caller's own reference; default `booksync:{commandId}`. */
  externalReferenceId?: string;
  commandId: string;
}

export interface RecordDebitMemoCommand {
  amountCents: number;
  description: string;
  externalReferenceId?: string;
  commandId: string;
}

export interface VoidExternalPaymentCommand {
  externalPaymentId: string;
  commandId: string;
}

export interface VoidDebitMemoCommand {
  debitMemoId: string;
  commandId: string;
}

export interface SyncLinkCommand {
  reason: string;
  /** Optional: a sync asked twice with the same id is done once. */
  commandId?: string;
}

export const recordExternalPaymentSignal =
  defineSignal<[RecordExternalPaymentCommand]>('recordExternalPayment');
export const recordDebitMemoSignal = defineSignal<[RecordDebitMemoCommand]>('recordDebitMemo');
export const voidExternalPaymentSignal = defineSignal<[VoidExternalPaymentCommand]>('voidExternalPayment');
export const voidDebitMemoSignal = defineSignal<[VoidDebitMemoCommand]>('voidDebitMemo');
export const syncPaymentLinkSignal = defineSignal<[SyncLinkCommand]>('sync');

export type QueuedCommand =
  | { kind: 'recordExternalPayment'; command: RecordExternalPaymentCommand }
  | { kind: 'recordDebitMemo'; command: RecordDebitMemoCommand }
  | { kind: 'voidExternalPayment'; command: VoidExternalPaymentCommand }
  | { kind: 'voidDebitMemo'; command: VoidDebitMemoCommand }
  | { kind: 'sync'; command: SyncLinkCommand };

/** A command that writes money at the service, sent as an Update so its caller gets the outcome. */
export type LinkWriteCommand = Exclude<QueuedCommand, { kind: 'sync' }>;

/** An Update's answer: the command's result, and the link as fetched right after (its remainder). */
export interface LinkCommandAnswer {
  result: LinkCommandResult;
  link: {
    requestedAmountCents: number | null;
    completedAmountCents: number | null;
    debitMemoAmountCents: number | null;
  };
}

export const linkCommandUpdate = defineUpdate<LinkCommandAnswer, [LinkWriteCommand]>('command');

/** The shape a write must have before anything is written to history (the command API checks the same). */
export function validateLinkCommand(queued: LinkWriteCommand): void {
  const text = (value: unknown) => typeof value === 'string' && value.length > 0 && value.length <= 500;
  const cents = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 1;
  const c = queued?.command as unknown as Partial<Record<string, unknown>> | undefined;
  if (!c || !text(c.commandId)) throw new Error('a command needs a commandId');
  switch (queued.kind) {
    case 'recordExternalPayment':
      if (!cents(c.amountCents) || !text(c.paidAt))
        throw new Error('an external payment needs amountCents and paidAt');
      return;
    case 'recordDebitMemo':
      if (!cents(c.amountCents) || !text(c.description))
        throw new Error('a debit memo needs amountCents and a description');
      return;
    case 'voidExternalPayment':
      if (!text(c.externalPaymentId)) throw new Error('a void needs the externalPaymentId');
      return;
    case 'voidDebitMemo':
      if (!text(c.debitMemoId)) throw new Error('a void needs the debitMemoId');
      return;
    default:
      throw new Error(`unknown command ${String((queued as { kind?: unknown })?.kind)}`);
  }
}

export interface LinkCommandResult extends Partial<CommandFailure> {
  commandId: string;
  kind: QueuedCommand['kind'];
  status: 'DONE' | 'FAILED';
  /** The record written or voided (external payment or debit memo id). */
  recordId: string | null;
  externalReferenceId: string | null;
  /** Workflow time when it was handled. */
  at: string;
}

export interface PaymentLinkView {
  paymentLinkId: string;
  state: 'OPEN' | 'CLOSED';
  /** As last fetched: ACTIVE, PAID, ARCHIVED... */
  serviceStatus: string | null;
  requestedAmountCents: number | null;
  completedAmountCents: number | null;
  debitMemoAmountCents: number | null;
  externalPayments: PaymentLinkSyncResult['externalPayments'];
  debitMemos: PaymentLinkSyncResult['debitMemos'];
  /** The payment-link flow's entries for this link (external payments, debit memos, their reversals). */
  booked: PaymentLinkSyncResult['booked'];
  /** The last 20 commands, newest last. */
  commands: LinkCommandResult[];
  duplicatesDropped: number;
  syncs: number;
  lastSync: { at: string; reason: string; posted: string[]; reversed: string[] } | null;
  /** The last failure (a command the service refused, or a sync that could not complete); null once a batch succeeds. */
  lastError: string | null;
  openedAt: string;
  closedAt: string | null;
}

export interface PaymentLinkWorkflowInput {
  paymentLinkId: string;
  /** Sync at start even without a command (another flow or reconciliation starts runs this way). */
  syncOnStart?: boolean;
  /** Closes after this many days without a command. Default 30. */
  idleDays?: number;
  /** Carried through continue-as-new. */
  seenCommandIds?: string[];
  commands?: LinkCommandResult[];
}

export const paymentLinkViewQuery = defineQuery<PaymentLinkView>('view');

/** The workflow's type: everything that starts or signals it by name uses this (never a literal). */
export const paymentLinkWorkflowType = 'paymentLink';

export function paymentLinkWorkflowId(paymentLinkId: string): string {
  return workflowIdFor(paymentLinkWorkflowType, paymentLinkId);
}

/** The reference a write carries when the caller gave none: stable per command, so retries are safe. */
export function commandReference(commandId: string): string {
  return `booksync:${commandId}`;
}
