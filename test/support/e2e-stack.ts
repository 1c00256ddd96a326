import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundle } from '@temporalio/worker';
import type { Emulator } from '../../src/emulator/server.js';
import { createDeliveryWorker, deliveryWorkflowsPath } from '../../src/emulator/webhooks/delivery-worker.js';
import { DirectHttpDispatcher } from '../../src/emulator/webhooks/direct-http-dispatcher.js';
import { RecordingDispatcher } from '../../src/emulator/webhooks/recording-dispatcher.js';
import { TemporalDispatcher } from '../../src/emulator/webhooks/temporal-dispatcher.js';
import { routeEvent } from '../../src/ingress/routing.js';
import { DEFAULT_SIGNAL_TIMEOUT_MS } from '../../src/ingress/server.js';
import { signalServiceEvent } from '../../src/ingress/temporal-signal.js';
import type { AccountName } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import type { BookedEntry, EntryLine } from '../../src/ledger/entry.js';
import {
  closingAssertions,
  type HledgerAssertion,
  toHledgerJournal,
} from '../../src/ledger/hledger-export.js';
import type { ServiceClient } from '../../src/service/client.js';
import type { Disbursement, EventEnvelope, Payment } from '../../src/service/schemas/index.js';
import { sign } from '../../src/service/webhook-signature.js';
import {
  type InProcessBooks,
  type InProcessEmulator,
  startInProcessBooks,
  startInProcessEmulator,
} from './in-process-stack.js';
import { uniqueTaskQueue } from './temporal.js';
import { waitFor } from './wait-for.js';

// Everything booksync runs, in-process, on loopback: the emulator (SQLite file, seeded demo organization,
// webhook subscription pointing at the ingress), the ingress, booksync's worker on its own task queue and,
// for 'temporal' dispatch, the emulator's webhook delivery worker. Nothing is mocked: webhooks go over HTTP,
// signed; the worker's activities call the emulator over HTTP and write a ledger file.
// Both halves are the in-process stack's (in-process-stack.ts): one service side for the stack's life, a
// books side per freshBooks.
//
// On a time-skipping server, move time only with env.sleep and wait with waitForWorkflow/waitForBooks: while a
// client awaits handle.result(), the test server skips time even with a real activity in flight (measured:
// about 10 years per result() of a card payment's run), which breaks any date shared with the emulator.

export type DispatchMode =
  /** The emulator POSTs each event itself (DirectHttpDispatcher, short backoff). */
  | 'direct'
  /** Each delivery is a webhookDelivery workflow on the same Temporal (D32), run by the delivery worker. */
  | 'temporal'
  /** Events are only recorded (GET /sandbox/events); the test signals workflows itself (signalEvent). */
  | 'none';

export interface E2EStackOptions {
  temporal: TestWorkflowEnvironment;
  dispatcher: DispatchMode;
  /** Ledger file; default a file in the stack's temp dir. */
  ledgerPath?: string;
  /** Waits between direct delivery attempts (default 200/400/800/1600 ms: retries within seconds). */
  directBackoffMs?: readonly number[];
}

export type PayMethod = 'Card' | 'ACH' | 'ServiceBalance';

export interface EventLogEntry {
  event: EventEnvelope;
  dispatchedAt: string | null;
  attempts: { subscriptionId: string; attempt: number; statusCode: number | null; error: string | null }[];
}

/** What the books hold, in a form two ledgers can be compared by (no row ids, no booking timestamps). */
export interface BooksSnapshot {
  entries: Record<
    string,
    {
      date: string;
      description: string;
      lines: EntryLine[];
      reverses: string | null;
      reversedBy: string | null;
    }
  >;
  balances: Partial<Record<AccountName, number>>;
  totalDebitCents: number;
  balanced: boolean;
}

/** The emulator's admin token in this stack (organizations, clock moves). */
const e2eAdminToken = 'e2e-admin';
const sandboxErrors = { tag: 'sandbox' };
let deliveryBundle: Promise<WorkflowBundle> | undefined;

/** The emulator's delivery workflows, bundled once per test process. */
function deliveryWorkflowBundle(): Promise<WorkflowBundle> {
  deliveryBundle ??= bundleWorkflowCode({
    workflowsPath: deliveryWorkflowsPath,
    logger: new DefaultLogger('WARN'),
  });
  return deliveryBundle;
}

export { waitFor } from './wait-for.js';

export function snapshotOf(
  entries: readonly BookedEntry[],
  balances: BooksSnapshot['balances'],
): BooksSnapshot {
  const byKey: BooksSnapshot['entries'] = {};
  for (const entry of entries) {
    byKey[entry.key] = {
      date: entry.date,
      description: entry.description,
      lines: [...entry.lines].sort((a, b) =>
        a.account === b.account ? a.amountCents - b.amountCents : a.account < b.account ? -1 : 1,
      ),
      reverses: entry.reverses,
      reversedBy: entry.reversedBy,
    };
  }
  let totalDebitCents = 0;
  let sum = 0;
  for (const cents of Object.values(balances)) {
    sum += cents ?? 0;
    if ((cents ?? 0) > 0) totalDebitCents += cents ?? 0;
  }
  return { entries: byKey, balances, totalDebitCents, balanced: sum === 0 };
}

/**
 * Runs `hledger -f <journal> check -s` on an export of `ledger`: closing assertions from the ledger's own
 * balances (closingAssertions) and, when given, from `expected` balances computed elsewhere, both after the
 * last entry's date. Rejects when hledger finds an unbalanced transaction or a failing assertion.
 */
export async function hledgerCheck(
  ledger: Pick<EmbeddedLedger, 'allEntries' | 'balances'>,
  dir: string,
  expected: Partial<Record<AccountName, number>> = {},
): Promise<{ journal: string; file: string; balanceReport: string }> {
  const entries = await ledger.allEntries();
  const lastDate =
    entries
      .map((e) => e.date)
      .sort()
      .at(-1) ?? '1970-01-01';
  const expectedAssertions: HledgerAssertion[] = Object.entries(expected).map(([account, cents]) => ({
    account: account as AccountName,
    date: lastDate,
    balanceCents: cents ?? 0,
  }));
  const journal = toHledgerJournal(entries, {
    assertions: [...closingAssertions(await ledger.balances(), lastDate), ...expectedAssertions],
  });
  const file = path.join(dir, `books-${Date.now()}-${Math.random().toString(36).slice(2, 6)}.journal`);
  writeFileSync(file, journal);
  const run = promisify(execFile);
  await run('hledger', ['-f', file, 'check', '-s']);
  const { stdout } = await run('hledger', ['-f', file, 'bal', '--flat', '--no-total', '-E']);
  return { journal, file, balanceReport: stdout };
}

export class E2EStack {
  readonly dir: string;
  readonly env: TestWorkflowEnvironment;
  readonly client: Client;
  readonly emulator: Emulator;
  readonly emulatorUrl: string;
  readonly apiKey: string;
  readonly service: ServiceClient;
  readonly dispatcher: DispatchMode;
  /** Replaced by freshBooks(): */
  ledger!: EmbeddedLedger;
  ledgerPath!: string;
  taskQueue!: string;
  ingressUrl!: string;
  webhookUrl!: string;
  /** The secret the ingress verifies with (the subscription's, unless the test re-pointed it). */
  webhookSecret!: string;
  subscriptionId!: string;

  private books_: InProcessBooks | null = null;
  private readonly cleanups: (() => Promise<void>)[] = [];

  private constructor(init: {
    dir: string;
    env: TestWorkflowEnvironment;
    service: InProcessEmulator;
    dispatcher: DispatchMode;
  }) {
    this.dir = init.dir;
    this.env = init.env;
    this.client = init.env.client;
    this.emulator = init.service.emulator;
    this.emulatorUrl = init.service.serviceUrl;
    this.apiKey = init.service.apiKey;
    this.dispatcher = init.dispatcher;
    this.service = init.service.service;
  }

  static async start(options: E2EStackOptions): Promise<E2EStack> {
    const dir = mkdtempSync(path.join(tmpdir(), 'booksync-e2e-'));
    const env = options.temporal;
    const deliveryTaskQueue = uniqueTaskQueue('e2e-deliveries');
    let service: InProcessEmulator;
    try {
      service = await startInProcessEmulator({
        dbPath: path.join(dir, 'emulator.db'),
        adminToken: e2eAdminToken,
        serviceTimeoutMs: 20_000,
        dispatcher: (s) => {
          if (options.dispatcher === 'direct') {
            return new DirectHttpDispatcher({
              store: s,
              backoffMs: options.directBackoffMs ?? [200, 400, 800, 1_600],
            });
          }
          if (options.dispatcher === 'temporal') {
            return new TemporalDispatcher({ client: env.client, taskQueue: deliveryTaskQueue });
          }
          return new RecordingDispatcher();
        },
      });
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    const stack = new E2EStack({ dir, env, service, dispatcher: options.dispatcher });
    stack.cleanups.push(() => service.close());
    try {
      if (options.dispatcher === 'temporal') {
        const deliveryWorker = await createDeliveryWorker({
          connection: env.nativeConnection,
          namespace: env.namespace ?? 'default',
          taskQueue: deliveryTaskQueue,
          store: service.emulator.store,
          workflowBundle: await deliveryWorkflowBundle(),
        });
        const run = deliveryWorker.run();
        stack.cleanups.push(async () => {
          if (deliveryWorker.getState() === 'RUNNING') deliveryWorker.shutdown();
          await run;
        });
      }
      await stack.startBooks(options.ledgerPath ?? path.join(dir, 'books.db'));
    } catch (error) {
      await stack.stop();
      throw error;
    }
    return stack;
  }

  /** Ledger, worker (new task queue) and ingress (new port and subscription secret): the in-process books side. */
  private async startBooks(ledgerPath: string): Promise<void> {
    this.ledgerPath = ledgerPath;
    this.ledger = EmbeddedLedger.open({ path: ledgerPath });
    this.books_ = await startInProcessBooks({
      env: this.env,
      taskQueuePrefix: 'e2e-booksync',
      service: this.service,
      ledger: this.ledger,
    });
    const subscription = this.books_.subscription;
    if (!subscription) throw new Error('the books side started without a subscription');
    this.taskQueue = this.books_.taskQueue;
    this.ingressUrl = this.books_.ingressUrl;
    this.webhookUrl = `${this.ingressUrl}/webhooks/service`;
    this.webhookSecret = subscription.secret;
    this.subscriptionId = subscription.id;
  }

  private async stopBooks(): Promise<void> {
    const books = this.books_;
    this.books_ = null;
    try {
      await books?.close();
    } finally {
      this.ledger?.close();
    }
  }

  /**
   * Starts over on the books side while the service keeps its state: terminates every open workflow the
   * events routed to, stops the worker and ingress, then opens a new ledger with a new worker (new task
   * queue) and ingress (new subscription secret). The old ledger file stays readable at its path.
   */
  async freshBooks(ledgerPath = path.join(this.dir, `books-${Date.now()}.db`)): Promise<void> {
    const ids = new Set((await this.events()).flatMap((e) => this.workflowIdOf(e.event) ?? []));
    for (const id of ids) {
      await this.client.workflow
        .getHandle(id)
        .terminate('e2e: starting over on fresh books')
        .catch(() => undefined);
    }
    await this.stopBooks();
    await this.startBooks(ledgerPath);
  }

  async stop(): Promise<void> {
    const errors: unknown[] = [];
    try {
      await this.stopBooks();
    } catch (error) {
      errors.push(error);
    }
    for (const cleanup of this.cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        errors.push(error);
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
    if (errors.length > 0) throw errors[0];
  }

  // ---- the sandbox: the outside world acting on the service -------------------------------------------

  private async sandbox<T>(
    method: string,
    urlPath: string,
    body?: unknown,
    bearer = this.apiKey,
  ): Promise<T> {
    const response = await fetch(`${this.emulatorUrl}${urlPath}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) {
      throw Object.assign(new Error(`${method} ${urlPath}: ${response.status} ${text}`), {
        ...sandboxErrors,
        status: response.status,
      });
    }
    return JSON.parse(text) as T;
  }

  pay(paymentLinkId: string, method: PayMethod, amountCents?: number): Promise<Payment> {
    return this.sandbox('POST', `/sandbox/paymentLinks/${paymentLinkId}/pay`, {
      method,
      ...(amountCents === undefined ? {} : { amountCents }),
    });
  }
  settle(paymentId: string): Promise<Payment> {
    return this.sandbox('POST', `/sandbox/payments/${paymentId}/settle`);
  }
  sendToNetwork(paymentId: string): Promise<Payment> {
    return this.sandbox('POST', `/sandbox/payments/${paymentId}/sendToNetwork`);
  }
  achReturn(paymentId: string): Promise<Payment> {
    return this.sandbox('POST', `/sandbox/payments/${paymentId}/achReturn`);
  }
  /** The API refund (4.4), not a sandbox control; the refund made is the payment's last one. */
  refund(paymentId: string, amountCents?: number): Promise<Payment> {
    return this.service.refundPayment(paymentId, amountCents === undefined ? {} : { amountCents });
  }
  returnRefund(refundId: string): Promise<Payment> {
    return this.sandbox('POST', `/sandbox/refunds/${refundId}/return`);
  }
  batchDisbursement(): Promise<Disbursement> {
    return this.sandbox('POST', '/sandbox/disbursements');
  }
  succeedDisbursement(disbursementId: string): Promise<Disbursement> {
    return this.sandbox('POST', `/sandbox/disbursements/${disbursementId}/succeed`);
  }
  advanceClock(by: { days?: number; seconds?: number }): Promise<{ now: string; offsetMs: number }> {
    // The clock is every organization's: moving it takes the admin token (E17).
    return this.sandbox('POST', '/sandbox/clock/advance', by, e2eAdminToken);
  }
  clock(): Promise<{ now: string; offsetMs: number }> {
    return this.sandbox('GET', '/sandbox/clock');
  }
  heldBalance(): Promise<{ heldBalanceCents: number }> {
    return this.sandbox('GET', '/sandbox/balance');
  }

  /**
   * Moves the emulator clock forward to the Temporal server's time when that is ahead (a time-skipping
   * server that skipped days), so payment dates and workflow timers agree.
   */
  async alignClock(): Promise<void> {
    const serverMs = await this.env.currentTimeMs();
    const emulatorMs = Date.parse((await this.clock()).now);
    const aheadSeconds = Math.floor((serverMs - emulatorMs) / 1000);
    if (aheadSeconds > 0) await this.advanceClock({ seconds: aheadSeconds });
  }

  /** The emulator's event log, oldest first, every page. */
  async events(): Promise<EventLogEntry[]> {
    const all: EventLogEntry[] = [];
    for (let page = 1; ; page++) {
      const { events, totalResults } = await this.sandbox<{ events: EventLogEntry[]; totalResults: number }>(
        'GET',
        `/sandbox/events?page=${page}&pageSize=100`,
      );
      all.push(...events);
      if (events.length === 0 || all.length >= totalResults) return all;
    }
  }

  // ---- webhooks by hand --------------------------------------------------------------------------------

  workflowIdOf(event: EventEnvelope): string | undefined {
    return routeEvent(event.category, event.associated_object_id)?.workflowId;
  }

  /** What the ingress does for a verified delivery: signalWithStart the owning workflow. Returns its id. */
  async signalEvent(event: EventEnvelope): Promise<string> {
    const route = routeEvent(event.category, event.associated_object_id);
    if (!route) throw new Error(`no route for ${event.category}`);
    await signalServiceEvent(
      this.client,
      this.taskQueue,
      route,
      {
        eventId: event.id,
        category: event.category,
        objectType: event.associated_object_type,
        objectId: event.associated_object_id,
        createdAt: event.created_at,
      },
      DEFAULT_SIGNAL_TIMEOUT_MS * 4,
    );
    return route.workflowId;
  }

  /**
   * POSTs a body to the ingress. `signature`: 'valid' (default: the ingress's secret, now), 'none', a secret
   * to sign with, or a raw header; `skewSeconds` shifts t.
   */
  async deliver(
    body: string,
    options: {
      signature?: 'valid' | 'none' | { secret: string } | { header: string };
      skewSeconds?: number;
    } = {},
  ): Promise<{ status: number; json: Record<string, unknown> }> {
    const signature = options.signature ?? 'valid';
    const t = Math.floor(Date.now() / 1000) + (options.skewSeconds ?? 0);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (signature === 'valid') headers['service-signature'] = sign(this.webhookSecret, body, t);
    else if (signature !== 'none' && 'secret' in signature) {
      headers['service-signature'] = sign(signature.secret, body, t);
    } else if (signature !== 'none') headers['service-signature'] = signature.header;
    const response = await fetch(`${this.ingressUrl}/webhooks/service`, { method: 'POST', headers, body });
    const text = await response.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // not JSON
    }
    return { status: response.status, json };
  }

  // ---- waiting -----------------------------------------------------------------------------------------

  /** Polls the ledger until `predicate` holds; returns the snapshot that satisfied it. */
  waitForBooks(
    what: string,
    predicate: (books: BooksSnapshot) => boolean,
    timeoutMs = 60_000,
  ): Promise<BooksSnapshot> {
    return waitFor(
      `books: ${what}`,
      async () => {
        const books = await this.books();
        return predicate(books) ? books : undefined;
      },
      timeoutMs,
    );
  }

  /** Waits until the workflow exists (and, with `closed`, has closed); returns its description. */
  waitForWorkflow(
    workflowId: string,
    options: { closed?: boolean; runId?: string } = {},
    timeoutMs = 60_000,
  ) {
    return waitFor(
      `workflow ${workflowId}${options.closed ? ' closed' : ''}`,
      async () => {
        try {
          const description = await this.client.workflow.getHandle(workflowId, options.runId).describe();
          if (options.closed && description.status.name === 'RUNNING') return undefined;
          return description;
        } catch (error) {
          if (error instanceof WorkflowNotFoundError) return undefined;
          throw error;
        }
      },
      timeoutMs,
    );
  }

  async workflowExists(workflowId: string): Promise<boolean> {
    try {
      await this.client.workflow.getHandle(workflowId).describe();
      return true;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  }

  /**
   * Waits until nothing is under way: every event the emulator sent to the current subscription was
   * acknowledged (2xx), and the latest run of every workflow the events route to is closed or idle (no
   * workflow task, no activity pending). A signal is durable before its 2xx, so a quiet stack has booked
   * everything its events asked for. With dispatch 'none', only the workflows are looked at.
   */
  async waitForQuiet(timeoutMs = 60_000): Promise<void> {
    await waitFor(
      'deliveries acknowledged and workflows idle',
      async () => {
        const log = await this.events();
        if (this.dispatcher !== 'none') {
          for (const entry of log) {
            const acknowledged = entry.attempts.some(
              (a) => a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300,
            );
            const elsewhere =
              entry.attempts.length > 0 &&
              entry.attempts.every((a) => a.subscriptionId !== this.subscriptionId);
            if (!acknowledged && !elsewhere) {
              throw new Error(`event ${entry.event.id} (${entry.event.category}) not acknowledged yet`);
            }
          }
        }
        const ids = new Set(log.flatMap((e) => this.workflowIdOf(e.event) ?? []));
        for (const id of ids) {
          let description: Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['describe']>>;
          try {
            description = await this.client.workflow.getHandle(id).describe();
          } catch (error) {
            // Not signalled (dispatch 'none', or the event went to another subscription): nothing under way.
            if (error instanceof WorkflowNotFoundError) continue;
            throw error;
          }
          if (description.status.name !== 'RUNNING') continue;
          if ((description.raw.pendingActivities ?? []).length > 0) {
            throw new Error(`${id} has an activity pending`);
          }
          if (description.raw.pendingWorkflowTask) throw new Error(`${id} has a workflow task pending`);
        }
        return true;
      },
      timeoutMs,
      300,
    );
  }

  async books(): Promise<BooksSnapshot> {
    const balances: BooksSnapshot['balances'] = {};
    for (const b of await this.ledger.balances()) balances[b.account] = b.balanceCents;
    return snapshotOf(await this.ledger.allEntries(), balances);
  }

  /** hledger check -s over an export of the current ledger (see hledgerCheck). */
  hledgerCheck(expected: Partial<Record<AccountName, number>> = {}) {
    return hledgerCheck(this.ledger, this.dir, expected);
  }
}

export function startE2EStack(options: E2EStackOptions): Promise<E2EStack> {
  return E2EStack.start(options);
}
