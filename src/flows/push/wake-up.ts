import type { Client } from '@temporalio/client';
import type { LedgerPort } from '../../ledger/ledger-port.js';
import { passedThrough } from '../../ledger/ledger-reads.js';
import type { Logger } from '../../logging/logger.js';
import {
  type AccountingTargetInput,
  accountingTargetWorkflowId,
  accountingTargetWorkflowType,
  entriesPostedSignal,
} from './contract.js';

// The push's wake-up. Every flow that books (payment, payment link, check deposit, bill payment, payout,
// deposit slip, reconciliation, backfill, resync) writes through the ledger this module wraps: each write
// that makes an entry schedules one `entriesPosted` signal per target's push workflow, a burst of writes
// gathered into one (WAKE_UP_GATHER_MS). The signal only saves waiting: a push workflow also looks for
// entries every PUSH_POLL_INTERVAL, so a wake-up lost in a crash costs that long, never an entry
// (docs/decisions.md, "The push's wake-up").

/** How long a burst of ledger writes is gathered into one wake-up signal per target. */
export const WAKE_UP_GATHER_MS = 200;

/** What a push workflow starts with, from the settings. */
export type PushWorkflowSettings = Omit<AccountingTargetInput, 'target'>;

/**
 * The ledger the activities write through when targets are configured: every new entry (not a no-op
 * repeat) calls `onNewEntry`. Every other method of the port passes straight through: a decorator of the
 * whole port, so whatever the activities use works with or without targets (test/ledger/ledger-decorators.test.ts
 * holds each decorator to the port's methods).
 */
export function notifyingLedger(ledger: LedgerPort, onNewEntry: () => void): LedgerPort {
  return {
    async post(entry) {
      const result = await ledger.post(entry);
      if (result.created) onNewEntry();
      return result;
    },
    async reverse(key, options) {
      const result = await ledger.reverse(key, options);
      if (result.created) onNewEntry();
      return result;
    },
    async postMany(entries) {
      const results = await ledger.postMany(entries);
      if (results.some((r) => r.created)) onNewEntry();
      return results;
    },
    ...passedThrough(ledger),
  };
}

/** The push workflows of `targets` woken by the ledger's new entries, once `start` has started them. */
export class PushWakeUp {
  #wake: (() => void) | null = null;
  #timer: NodeJS.Timeout | null = null;
  readonly #targets: readonly string[];
  readonly #settings: PushWorkflowSettings;
  readonly #logger: Logger;

  constructor(targets: readonly string[], settings: PushWorkflowSettings, logger: Logger) {
    this.#targets = targets;
    this.#settings = settings;
    this.#logger = logger;
  }

  /** `ledger` with every new entry waking the push workflows (nothing before `start`). */
  ledger(ledger: LedgerPort): LedgerPort {
    return notifyingLedger(ledger, () => this.#entryPosted());
  }

  /** Starts (or wakes) one push workflow per target; from then on new entries wake them. Idempotent. */
  async start(client: Client, taskQueue: string): Promise<void> {
    const signalAll = () =>
      Promise.all(
        this.#targets.map((target) =>
          client.workflow.signalWithStart<(input: AccountingTargetInput) => Promise<void>, []>(
            accountingTargetWorkflowType,
            {
              workflowId: accountingTargetWorkflowId(target),
              taskQueue,
              args: [{ target, ...this.#settings }],
              signal: entriesPostedSignal,
              signalArgs: [],
            },
          ),
        ),
      );
    await signalAll();
    this.#wake = () =>
      void signalAll().catch((err) =>
        this.#logger.warn({ err }, 'could not wake the accounting-target push; its poll catches up'),
      );
  }

  /** No more wake-ups (the worker is stopping). */
  stop(): void {
    this.#wake = null;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #entryPosted(): void {
    if (this.#timer || !this.#wake) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#wake?.();
    }, WAKE_UP_GATHER_MS);
  }
}
