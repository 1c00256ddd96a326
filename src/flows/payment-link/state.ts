import { SeenIds } from '../in-workflow/seen-ids.js';
import type { PaymentLinkSyncResult } from './activities-contract.js';
import type {
  LinkCommandAnswer,
  LinkCommandResult,
  PaymentLinkView,
  PaymentLinkWorkflowInput,
  QueuedCommand,
} from './contract.js';

const keptCommands = 20;

/**
 * What a payment-link run holds between its handlers and its loop (samples-typescript's safe message
 * handlers): the commands queued and in flight, the answers of this run, the ids seen, and the view. No
 * workflow API here: the workflow (src/flows/payment-link/workflow.ts) does the waiting and the activities.
 */
export class PaymentLinkState {
  readonly view: PaymentLinkView;
  readonly seen: SeenIds;
  #queue: QueuedCommand[] = [];
  /** The batch being written; its commands are neither queued nor settled. */
  readonly #inFlight = new Set<string>();
  /** This run's results, by command id, once their batch's fetch is done. */
  readonly #answered = new Map<string, LinkCommandResult>();

  constructor(input: PaymentLinkWorkflowInput, now: string) {
    this.seen = new SeenIds(input.seenCommandIds);
    this.view = {
      paymentLinkId: input.paymentLinkId,
      state: 'OPEN',
      serviceStatus: null,
      requestedAmountCents: null,
      completedAmountCents: null,
      debitMemoAmountCents: null,
      externalPayments: [],
      debitMemos: [],
      booked: [],
      commands: input.commands ?? [],
      duplicatesDropped: 0,
      syncs: 0,
      lastSync: null,
      lastError: null,
      openedAt: now,
      closedAt: null,
    };
  }

  get hasQueued(): boolean {
    return this.#queue.length > 0;
  }

  /** A signalled command: queued once; a repeated command id is dropped and counted. */
  enqueue(command: QueuedCommand): void {
    const id = command.command.commandId;
    if (id !== undefined && !this.seen.add(id)) {
      this.view.duplicatesDropped++;
      return;
    }
    this.#queue.push(command);
  }

  /**
   * A command sent as an Update: queued if new; false when its id was handled before and its outcome is no
   * longer kept (the Update cannot answer it).
   */
  enqueueUpdate(queued: QueuedCommand & { command: { commandId: string } }): boolean {
    const id = queued.command.commandId;
    if (this.seen.add(id)) this.#queue.push(queued);
    else if (!this.settled(id) && !this.#pending(id)) return false;
    return true;
  }

  /** The command's result once its batch is done (this run's, or one carried over), else undefined. */
  settled(id: string): LinkCommandResult | undefined {
    return (
      this.#answered.get(id) ??
      (this.#pending(id) ? undefined : this.view.commands.find((c) => c.commandId === id))
    );
  }

  /** The Update's answer: the command's result and the link's amounts after it. */
  answer(id: string): LinkCommandAnswer {
    return {
      result: this.settled(id) as LinkCommandResult,
      link: {
        requestedAmountCents: this.view.requestedAmountCents,
        completedAmountCents: this.view.completedAmountCents,
        debitMemoAmountCents: this.view.debitMemoAmountCents,
      },
    };
  }

  /** Takes every queued command as the next batch, in arrival order. */
  takeBatch(): QueuedCommand[] {
    const batch = this.#queue;
    this.#queue = [];
    for (const q of batch) if (q.command.commandId) this.#inFlight.add(q.command.commandId);
    return batch;
  }

  /** Keeps a command's result in the view (the last few). */
  remember(result: LinkCommandResult): void {
    this.view.commands.push(result);
    if (this.view.commands.length > keptCommands) {
      this.view.commands.splice(0, this.view.commands.length - keptCommands);
    }
  }

  /** The link as fetched after a batch. */
  synced(result: PaymentLinkSyncResult, reason: string, at: string): void {
    const view = this.view;
    view.syncs++;
    view.serviceStatus = result.status;
    view.requestedAmountCents = result.requestedAmountCents;
    view.completedAmountCents = result.completedAmountCents;
    view.debitMemoAmountCents = result.debitMemoAmountCents;
    view.externalPayments = result.externalPayments;
    view.debitMemos = result.debitMemos;
    view.booked = result.booked;
    view.lastSync = { at, reason, posted: result.posted, reversed: result.reversed };
  }

  /** The batch is written and fetched: its commands are answered. */
  finishBatch(): void {
    for (const id of this.#inFlight) {
      const result = this.view.commands.findLast((c) => c.commandId === id);
      if (result) this.#answered.set(id, result);
    }
    this.#inFlight.clear();
  }

  close(at: string): void {
    this.view.state = 'CLOSED';
    this.view.closedAt = at;
  }

  #pending(id: string): boolean {
    return this.#queue.some((q) => q.command.commandId === id) || this.#inFlight.has(id);
  }
}
