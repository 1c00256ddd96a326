import { type CommandFailure, lastErrorValue } from '../in-workflow/command-failure.js';
import { SeenIds } from '../in-workflow/seen-ids.js';
import type { CheckApplicationResult, CheckDepositSyncResult } from './activities-contract.js';
import { addToTotals, emptyApplicationTotals } from './applications.js';
import type {
  ApplyDepositCommand,
  CheckApplicationView,
  CheckDepositView,
  CheckDepositWorkflowInput,
  CheckDepositState as DepositState,
  VoidApplicationCommand,
  VoidCommandView,
} from './contract.js';

/**
 * What a check-deposit run holds between its handlers and its loop (samples-typescript's safe message
 * handlers): the apply and void commands waiting, the refresh asked for, this round's failures, the Updates'
 * answers, the ids seen, and the view. No workflow API here: the workflow (src/flows/check-deposit/workflow.ts) does
 * the waiting, the activities and the child workflows.
 */
export class CheckDepositRun {
  readonly view: Omit<CheckDepositView, 'applicationTotals'>;
  readonly seen: SeenIds;
  #applies: ApplyDepositCommand[] = [];
  #voids: VoidApplicationCommand[] = [];
  #refreshReason: string | null = null;
  /** Failures of the current round (a refused command, a sync that failed...): what the run is flagged for. */
  #failures: CommandFailure[] = [];
  /** Applications settled in this run, by command id, for the apply Update's answer. */
  readonly #answered = new Map<string, CheckApplicationView>();
  readonly #voidsAnswered = new Map<string, VoidCommandView>();

  constructor(input: CheckDepositWorkflowInput, pollInitialMs: number, now: string) {
    this.seen = new SeenIds(input.seenCommandIds);
    this.view = {
      checkDepositId: input.checkDepositId,
      state: 'WATCHING',
      serviceStatus: null,
      amountCents: null,
      unappliedAmountCents: null,
      applications: input.applications ?? [],
      unlistedApplications: input.unlistedApplications
        ? addToTotals(input.unlistedApplications, [])
        : emptyApplicationTotals(),
      voids: [],
      unknownApplicationIds: [],
      linksAfterReturn: [],
      returnedCheckFees: [],
      polls: 0,
      pollIntervalMs: input.pollIntervalMs ?? pollInitialMs,
      duplicatesDropped: 0,
      lastSync: null,
      lastError: null,
      openedAt: now,
      closedAt: null,
    };
  }

  /** The view with its totals worked out now (statuses of listed applications change as the deposit moves). */
  current(): CheckDepositView {
    return {
      ...this.view,
      applicationTotals: addToTotals(this.view.unlistedApplications, this.view.applications),
    };
  }

  // Commands in: signals and Updates.

  #fresh(commandId: string): boolean {
    if (this.seen.add(commandId)) return true;
    this.view.duplicatesDropped++;
    return false;
  }

  applySignalled(command: ApplyDepositCommand): void {
    if (this.#fresh(command.commandId)) this.#applies.push(command);
  }

  voidSignalled(command: VoidApplicationCommand): void {
    if (this.#fresh(command.commandId)) this.#voids.push(command);
  }

  refreshAsked(reason: string): void {
    this.#refreshReason = reason;
  }

  /**
   * A command sent as an Update: queued if new; false when seen before and neither still queued nor `listed`
   * (answered or in the view) any more (decision “Bounded check-deposit state”).
   */
  #requested<Command extends { commandId: string }>(
    command: Command,
    queue: Command[],
    listed: (commandId: string) => boolean,
  ): boolean {
    const id = command.commandId;
    if (this.#fresh(id)) queue.push(command);
    else if (!queue.some((c) => c.commandId === id) && !listed(id)) return false;
    return true;
  }

  /** An apply sent as an Update: queued if new; false when seen before and its row is no longer listed (decision “Bounded check-deposit state”). */
  applyRequested(command: ApplyDepositCommand): boolean {
    return this.#requested(
      command,
      this.#applies,
      (id) => this.#answered.has(id) || this.view.applications.some((a) => a.commandId === id),
    );
  }

  /** The application of an apply command once the service said yes or no, else undefined. */
  settledApplication(commandId: string): CheckApplicationView | undefined {
    return (
      this.#answered.get(commandId) ??
      this.view.applications.find((a) => a.commandId === commandId && a.status !== 'APPLYING')
    );
  }

  /** A void sent as an Update: queued if new; false when seen before and its record is no longer listed. */
  voidRequested(command: VoidApplicationCommand): boolean {
    return this.#requested(
      command,
      this.#voids,
      (id) => this.#voidsAnswered.has(id) || this.view.voids.some((v) => v.commandId === id),
    );
  }

  voidAnswer(commandId: string): VoidCommandView | undefined {
    return this.#voidsAnswered.get(commandId);
  }

  // The loop's side.

  get hasCommands(): boolean {
    return this.#applies.length > 0 || this.#voids.length > 0;
  }

  get hasWork(): boolean {
    return this.hasCommands || this.#refreshReason !== null;
  }

  /** A new round: its failures start empty; a round woken by the timer looks later next time (doubling). */
  beginRound(woken: boolean, pollMaxMs: number): string[] {
    this.#failures = [];
    if (woken) return [];
    this.view.pollIntervalMs = Math.min(this.view.pollIntervalMs * 2, pollMaxMs);
    return ['timer'];
  }

  takeApplies(): ApplyDepositCommand[] {
    const batch = this.#applies;
    this.#applies = [];
    return batch;
  }

  takeVoids(): VoidApplicationCommand[] {
    const batch = this.#voids;
    this.#voids = [];
    return batch;
  }

  takeRefresh(): string | null {
    const reason = this.#refreshReason;
    this.#refreshReason = null;
    return reason;
  }

  failed(failure: CommandFailure): void {
    this.#failures.push(failure);
  }

  /** The row of an application about to be asked for (APPLYING). */
  applying(command: ApplyDepositCommand, externalReferenceId: string): CheckApplicationView {
    const application: CheckApplicationView = {
      commandId: command.commandId,
      paymentLinkId: command.paymentLinkId,
      requestedAmountCents: command.amountCents ?? null,
      externalReferenceId,
      status: 'APPLYING',
      externalPaymentId: null,
      amountCents: null,
    };
    this.view.applications.push(application);
    return application;
  }

  /** The service applied it; a repeated reference answers the existing application (rule 5): one row. */
  applied(application: CheckApplicationView, result: CheckApplicationResult): void {
    const existing = this.view.applications.find(
      (a) => a !== application && a.externalPaymentId === result.externalPaymentId,
    );
    if (existing) this.view.applications.splice(this.view.applications.indexOf(application), 1);
    const target = existing ?? application;
    target.status = 'APPLIED';
    target.externalPaymentId = result.externalPaymentId;
    target.amountCents = result.amountCents;
    if (result.linkRemainderCents !== undefined) target.linkRemainderCents = result.linkRemainderCents;
    this.#answered.set(application.commandId, target);
  }

  refused(application: CheckApplicationView, failure: CommandFailure): void {
    Object.assign(application, { status: 'FAILED' }, failure);
    this.#failures.push(failure);
  }

  /** The void's record (DONE until refused) and the application it voids, if booksync made it. */
  voiding(command: VoidApplicationCommand): {
    record: VoidCommandView;
    application: CheckApplicationView | undefined;
  } {
    const application = this.view.applications.find((a) => a.externalPaymentId === command.externalPaymentId);
    const record: VoidCommandView = {
      commandId: command.commandId,
      externalPaymentId: command.externalPaymentId,
      status: 'DONE',
    };
    this.view.voids.push(record);
    return { record, application };
  }

  voidRefused(record: VoidCommandView, failure: CommandFailure): void {
    Object.assign(record, { status: 'FAILED' }, failure);
    this.#failures.push(failure);
  }

  /** The void is settled (done or refused): its Update answers. */
  voidSettled(commandId: string): void {
    const record = this.view.voids.findLast((v) => v.commandId === commandId);
    if (record) this.#voidsAnswered.set(commandId, record);
  }

  /** external payment id -> payment link id of every application booksync made. */
  paymentLinkOf(): Record<string, string> {
    const map: Record<string, string> = {};
    for (const a of this.view.applications)
      if (a.externalPaymentId) map[a.externalPaymentId] = a.paymentLinkId;
    return map;
  }

  /** The deposit as fetched. */
  synced(result: CheckDepositSyncResult, reason: string, at: string): void {
    const view = this.view;
    view.serviceStatus = result.status;
    view.amountCents = result.amountCents;
    view.unappliedAmountCents = result.unappliedAmountCents;
    view.unknownApplicationIds = result.unknownApplicationIds;
    view.lastSync = { at, reason, posted: result.posted, reversed: result.reversed };
    // An application voided at the service directly (the dashboard) is reversed by the sync; show it.
    for (const a of view.applications) {
      if (
        a.status === 'APPLIED' &&
        a.externalPaymentId &&
        !result.liveApplicationIds.includes(a.externalPaymentId)
      ) {
        a.status = result.status === 'RETURNED' || result.status === 'REJECTED' ? 'RETURNED' : 'VOIDED';
      }
    }
    if (result.unknownApplicationIds.length > 0) {
      this.#failures.push({
        error: `applications not made by booksync (not booked): ${result.unknownApplicationIds.join(', ')}`,
        errorType: 'UnknownApplication',
        errorCode: null,
        httpStatus: null,
      });
    }
  }

  /**
   * The run's last error to show: the latest failure of this round, else (while a refused application
   * stands: a person decides what to do with it) the one shown, else none.
   */
  lastError(): string | null {
    const last = this.#failures.at(-1);
    const refused = this.view.applications.some((a) => a.status === 'FAILED');
    return last ? lastErrorValue(last) : refused ? this.view.lastError : null;
  }

  close(state: DepositState, at: string): void {
    this.view.state = state;
    this.view.closedAt = at;
  }
}
