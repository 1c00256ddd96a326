import path from 'node:path';
import type { SandboxClient, SandboxClock, SandboxEvent } from '@booksync/emulator/sandbox-client';
import type { Emulator } from '@booksync/emulator/server';
import type { Disbursement, EventEnvelope, Payment } from '@booksync/service-contract/schemas/index';
import { sign } from '@booksync/service-contract/webhook-signature';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { routeEvent } from '../../src/ingress/routing.js';
import { DEFAULT_SIGNAL_TIMEOUT_MS } from '../../src/ingress/server.js';
import { signalServiceEvent } from '../../src/ingress/temporal-signal.js';
import type { AccountName } from '../../src/ledger/chart-of-accounts.js';
import type { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import type { ServiceClient } from '../../src/service/client.js';
import { deliver, type HttpAnswer, nowSeconds, terminateAll, workflowExists } from '../ingress/harness.js';
import { type BooksSnapshot, booksOf } from './books-snapshot.js';
import { hledgerCheck } from './hledger.js';
import type { DispatchMode } from './stack/emulator.js';
import { allEvents, busyWorkflows, routedWorkflows } from './stack/quiet.js';
import { type Stack, startStack } from './stack/stack.js';
import { waitFor } from './wait-for.js';

// Everything booksync runs, in-process, on loopback, a preset of the composed stack (stack/stack.ts): the
// emulator (SQLite file, seeded demo organization, webhook subscription pointing at the ingress), the
// ingress, booksync's worker on its own task queue and, for 'temporal' dispatch, the emulator's webhook
// delivery worker. Nothing is mocked: webhooks go over HTTP, signed; the worker's activities call the
// emulator over HTTP and write a ledger file. Two stacks: the service side (Temporal as given, the emulator)
// for the E2E stack's life, and a books side (ledger, worker, ingress) over it per freshBooks.
//
// On a time-skipping server, move time only with env.sleep and wait with waitForWorkflow/waitForBooks: while a
// client awaits handle.result(), the test server skips time even with a real activity in flight (measured:
// about 10 years per result() of a card payment's run), which breaks any date shared with the emulator.

export type { DispatchMode } from './stack/emulator.js';

export interface E2EStackOptions {
  temporal: TestWorkflowEnvironment;
  dispatcher: DispatchMode;
  /** Serve booksync's command API on the ingress with this bearer key (the business's own commands). */
  commandApiKey?: string;
}

export type PayMethod = 'Card' | 'ACH' | 'ServiceBalance';

/** The emulator's admin token in this stack (organizations, clock moves). */
const e2eAdminToken = 'e2e-admin';

export class E2EStack {
  readonly dir: string;
  readonly env: TestWorkflowEnvironment;
  readonly client: Client;
  readonly emulator: Emulator;
  readonly emulatorUrl: string;
  readonly apiKey: string;
  readonly service: ServiceClient;
  /** Replaced by freshBooks(): */
  ledger!: EmbeddedLedger;
  taskQueue!: string;
  ingressUrl!: string;
  /** The secret the ingress verifies with (the subscription's, unless the test re-pointed it). */
  webhookSecret!: string;
  subscriptionId!: string;

  private books_: Stack | null = null;

  private readonly serviceSide: Stack;
  readonly dispatcher: DispatchMode;
  private readonly commandApiKey: string | undefined;
  private constructor(serviceSide: Stack, dispatcher: DispatchMode, commandApiKey: string | undefined) {
    this.serviceSide = serviceSide;
    this.dispatcher = dispatcher;
    this.commandApiKey = commandApiKey;
    const emulator = serviceSide.emulator!;
    this.dir = serviceSide.dir;
    this.env = serviceSide.temporal.env!;
    this.client = serviceSide.temporal.client;
    this.emulator = emulator.emulator;
    this.emulatorUrl = emulator.serviceUrl;
    this.apiKey = emulator.apiKey;
    this.service = emulator.service;
  }

  static async start(options: E2EStackOptions): Promise<E2EStack> {
    const serviceSide = await startStack({
      name: 'e2e',
      temporal: options.temporal,
      emulator: {
        adminToken: e2eAdminToken,
        dispatch: options.dispatcher,
        onDisk: true,
        serviceTimeoutMs: 20_000,
      },
    });
    const stack = new E2EStack(serviceSide, options.dispatcher, options.commandApiKey);
    try {
      await stack.startBooks();
    } catch (error) {
      await stack.stop();
      throw error;
    }
    return stack;
  }

  /** Ledger (a new file in the stack's folder), worker (new task queue) and ingress (new port and secret). */
  private async startBooks(): Promise<void> {
    const books = await startStack({
      name: 'e2e-books',
      temporal: this.env,
      emulator: this.service,
      ledger: { path: path.join(this.dir, `books-${Date.now()}.db`) },
      worker: { run: 'in-process' },
      ingress: this.commandApiKey === undefined ? {} : { commandApiKey: this.commandApiKey },
      taskQueuePrefix: 'e2e-booksync',
    });
    this.books_ = books;
    const subscription = books.ingress!.subscription!;
    this.ledger = books.ledger!.open();
    this.taskQueue = books.taskQueue;
    this.ingressUrl = books.ingress!.url;
    this.webhookSecret = subscription.secret;
    this.subscriptionId = subscription.id;
  }

  /**
   * Starts over on the books side while the service keeps its state: terminates every open workflow the
   * events routed to, stops the worker and ingress, then opens a new ledger with a new worker (new task
   * queue) and ingress (new subscription secret). The old ledger file stays readable at its path.
   */
  async freshBooks(): Promise<void> {
    await terminateAll(this.client, routedWorkflows(await this.events()));
    await this.books_?.close();
    this.books_ = null;
    await this.startBooks();
  }

  /** The books side, then the service side; throws the first failure after stopping both. */
  async stop(): Promise<void> {
    let failure: unknown;
    await this.books_?.close().catch((error) => {
      failure = error;
    });
    this.books_ = null;
    await this.serviceSide.close();
    if (failure) throw failure;
  }

  // ---- the sandbox: the outside world acting on the service (the emulator's own sandbox client) ---------

  /** What customers, banks and vendors do at the service (the emulator's sandbox controls). */
  get sandbox(): SandboxClient {
    return this.serviceSide.emulator!.sandbox;
  }
  pay(paymentLinkId: string, method: PayMethod, amountCents?: number): Promise<Payment> {
    return this.sandbox.payLink(paymentLinkId, method, amountCents);
  }
  // The sandbox answers the payment (or disbursement) as it is after the move.
  settle(paymentId: string): Promise<Payment> {
    return this.sandbox.settlePayment(paymentId) as Promise<Payment>;
  }
  achReturn(paymentId: string): Promise<Payment> {
    return this.sandbox.returnAchPayment(paymentId) as Promise<Payment>;
  }
  /** The API refund (4.4), not a sandbox control; the refund made is the payment's last one. */
  refund(paymentId: string, amountCents?: number): Promise<Payment> {
    return this.service.refundPayment(paymentId, amountCents === undefined ? {} : { amountCents });
  }
  returnRefund(refundId: string): Promise<Payment> {
    return this.sandbox.returnRefundCredit(refundId) as Promise<Payment>;
  }
  batchDisbursement(): Promise<Disbursement> {
    return this.sandbox.batchDisbursement();
  }
  succeedDisbursement(disbursementId: string): Promise<Disbursement> {
    return this.sandbox.succeedDisbursement(disbursementId) as Promise<Disbursement>;
  }
  /** The clock is every organization's: moving it takes the admin token (E17). */
  advanceClock(by: { days?: number; seconds?: number }): Promise<SandboxClock> {
    return this.sandbox.advanceClock(by);
  }
  clock(): Promise<SandboxClock> {
    return this.sandbox.clock();
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
  events(): Promise<SandboxEvent[]> {
    return allEvents(this.sandbox);
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
  deliver(
    body: string,
    options: {
      signature?: 'valid' | 'none' | { secret: string } | { header: string };
      skewSeconds?: number;
    } = {},
  ): Promise<HttpAnswer> {
    const signature = options.signature ?? 'valid';
    const t = nowSeconds() + (options.skewSeconds ?? 0);
    const header =
      signature === 'none'
        ? undefined
        : signature === 'valid' || 'secret' in signature
          ? sign(signature === 'valid' ? this.webhookSecret : signature.secret, body, t)
          : signature.header;
    return deliver(this.ingressUrl, { body, ...(header === undefined ? {} : { signature: header }) });
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

  workflowExists(workflowId: string): Promise<boolean> {
    return workflowExists(this.client, workflowId);
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
        const busy = await busyWorkflows(this.client, routedWorkflows(log));
        if (busy > 0) throw new Error(`${busy} workflows with an activity or a workflow task pending`);
        return true;
      },
      timeoutMs,
      300,
    );
  }

  books(): Promise<BooksSnapshot> {
    return booksOf(this.ledger);
  }

  /** hledger check -s over an export of the current ledger (see hledgerCheck). */
  hledgerCheck(expected: Partial<Record<AccountName, number>> = {}) {
    return hledgerCheck(this.ledger, this.dir, expected);
  }
}

export function startE2EStack(options: E2EStackOptions): Promise<E2EStack> {
  return E2EStack.start(options);
}
