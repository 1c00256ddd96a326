// biome-ignore-all lint/suspicious/noExplicitAny: sandbox routes answer untyped JSON
import { ApplicationFailure } from '@temporalio/common';
import { createActivities } from '../../activities/index.js';
import { type AccountName, Accounts } from '../../src/ledger/chart-of-accounts.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { silentLogger } from '../../src/logging/logger.js';
import { ServiceClient } from '../../src/service/client.js';
import { ServiceError } from '../../src/service/errors.js';
import { type AccountRole, defaultAccountCodes } from '../../src/targets/account-mapping.js';
import { LedgerMirrorTarget } from '../../src/targets/ledger-mirror-target.js';
import { markersIn } from '../../src/targets/markers.js';
import type { TokenCipher } from '../../src/targets/oauth/token-cipher.js';
import { serviceReferences } from '../../src/targets/service-references.js';
import { SqliteTargetIndex } from '../../src/targets/target-index.js';
import type { AccountingTarget } from '../../src/targets/target-port.js';
import { quietActivityEnvironment, runActivity } from '../activities/fakes.js';
import type { Call, Harness } from '../emulator/harness.js';
import { quickBooksCompany } from './quickbooks/company.js';
import type { QuickBooksDouble } from './quickbooks/double.js';
import { markerTextOf, type XeroDouble } from './xero/double.js';
import { xeroOrganisation } from './xero/organisation.js';

// One business's books for the open-amounts property (test/targets/open-amounts.property.test.ts):
// its own organization at the service emulator (real HTTP), a real EmbeddedLedger in memory, the real
// ServiceClient and the real activities, and three targets fed by the production push activity
// (pushToTarget, in Temporal's MockActivityEnvironment: no server is needed for one activity): a ledger
// mirror, a new QuickBooks company in the QBO double and a new organisation in the Xero double. Each business
// step is the service call a person or the payer makes, then the activities the workflow that hears of it
// calls (workflows/payment.ts, payment-link.ts, check-deposit.ts), in the workflow's order.

export const roles = Object.keys(defaultAccountCodes) as AccountRole[];

/** A refusal of the service (4xx): the step did not happen, nothing is booked. */
export class Refused extends Error {}

export interface LinkState {
  id: string;
  customerId: string;
}

export interface DepositState {
  id: string;
  /** externalPaymentId → paymentLinkId: what the deposit's workflow remembers of its applications. */
  paymentLinkOf: Record<string, string>;
  commands: number;
}

export interface PaymentState {
  id: string;
  method: 'Card' | 'ACH';
}

export class OpenAmountsWorld {
  readonly links: LinkState[] = [];
  readonly deposits: DepositState[] = [];
  readonly payments: PaymentState[] = [];
  readonly customers: string[] = [];
  private commands = 0;

  private constructor(
    readonly service: ServiceClient,
    private readonly sandbox: Call,
    readonly ledger: EmbeddedLedger,
    readonly mirror: EmbeddedLedger,
    readonly activities: ReturnType<typeof createActivities>,
    readonly targets: AccountingTarget[],
    readonly qbo: { double: QuickBooksDouble; realmId: string },
    readonly xero: { double: XeroDouble; tenantId: string },
  ) {}

  /** `options.targets`: each target as the activities see it (a decorator of it: test/targets/overlapping-attempts.test.ts). */
  static async open(
    harness: Harness,
    doubles: { qbo: QuickBooksDouble; xero: XeroDouble },
    cipher: TokenCipher,
    options: {
      targets?: (target: AccountingTarget) => AccountingTarget;
      /** More targets beside the three (a real Tryton: overlapping-attempts.test.ts). */
      more?: AccountingTarget[];
    } = {},
  ): Promise<OpenAmountsWorld> {
    const org = await harness.newOrganization();
    const service = new ServiceClient({
      baseUrl: harness.baseUrl,
      apiKey: org.key,
      retry: { baseDelayMs: 20, maxDelayMs: 100 },
    });
    const ledger = EmbeddedLedger.open();
    const mirror = EmbeddedLedger.open();
    const company = quickBooksCompany(doubles.qbo, cipher);
    const organisation = xeroOrganisation(doubles.xero, cipher, {
      limits: { perMinute: 6_000, concurrent: 5, windowMs: 1_000, marginMs: 20 },
    });
    const targets: AccountingTarget[] = [
      new LedgerMirrorTarget(mirror),
      company.target(),
      organisation.target(),
      ...(options.more ?? []),
    ].map(options.targets ?? ((t) => t));
    // What `booksync start` does first: each target verified (accounts present, items and tax codes set up).
    for (const target of targets) await target.verify();
    const activities = createActivities({
      service,
      ledger,
      logger: silentLogger,
      timeZone: 'UTC',
      targets: {
        targets: new Map(targets.map((t) => [t.name, t])),
        index: new SqliteTargetIndex(ledger.database),
        references: serviceReferences(service),
        inFlightWaitMs: 90_000,
      },
    });
    const world = new OpenAmountsWorld(
      service,
      org.call,
      ledger,
      mirror,
      activities,
      targets,
      { double: doubles.qbo, realmId: company.realmId },
      { double: doubles.xero, tenantId: organisation.tenantId },
    );
    for (const name of ['Acme Corp', 'Bolt Ltd'])
      world.customers.push((await service.createCustomer({ name })).id);
    return world;
  }

  async close(): Promise<void> {
    for (const target of this.targets) await target.close();
    this.ledger.close();
    this.mirror.close();
  }

  private commandId(): string {
    this.commands++;
    return `cmd-${this.commands}`;
  }

  /** A sandbox call that must succeed, or the service's refusal as Refused. */
  private async sandboxCall(method: string, path: string, body?: unknown): Promise<any> {
    const answer = await this.sandbox(method, path, body);
    if (answer.status >= 400 && answer.status < 500) throw new Refused(answer.text);
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
    return answer.body;
  }

  /** A service refusal (a 400 or 409, straight or as the activity's ApplicationFailure) as Refused; anything else fails the test. */
  private async refusable<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      const status =
        error instanceof ServiceError
          ? error.status
          : error instanceof ApplicationFailure
            ? (error.details?.[0] as { status?: number } | undefined)?.status
            : undefined;
      if (status === 400 || status === 409) throw new Refused(String(error));
      throw error;
    }
  }

  /** What the payment-link workflow does after a command or when it learns of the link (syncOnStart). */
  private syncLink(paymentLinkId: string, reason: string) {
    return this.activities.syncPaymentLink({ paymentLinkId, reason, commandIds: [] });
  }

  /** The payment workflow on payment.made / failed / refunded / voided. */
  private syncPayment(paymentId: string) {
    return this.activities.syncPayment({ paymentId, eventIds: [], workflowId: `payment-${paymentId}` });
  }

  private syncDeposit(deposit: DepositState, reason: string) {
    return this.activities.syncCheckDeposit({
      checkDepositId: deposit.id,
      paymentLinkOf: { ...deposit.paymentLinkOf },
      reason,
    });
  }

  async remainderOf(paymentLinkId: string): Promise<number> {
    const link = await this.service.getPaymentLink(paymentLinkId);
    return link.requestedAmountCents - link.completedAmountCents;
  }

  // ---- business steps ----

  async createLink(cents: number, customer: number): Promise<void> {
    const customerId = this.customers[customer % this.customers.length] as string;
    const link = await this.service.createPaymentLink({
      name: `INV-${1001 + this.links.length}`,
      requestedAmountCents: cents,
      customerId,
      amountEditable: true,
    });
    this.links.push({ id: link.id, customerId });
    await this.syncLink(link.id, 'link created');
  }

  /** 4.3: the link's own amount set to `cents` (raised or lowered), then the link's workflow syncs it. */
  async changeAmount(link: LinkState, cents: number): Promise<void> {
    await this.refusable(() => this.service.updatePaymentLink(link.id, { requestedAmountCents: cents }));
    await this.syncLink(link.id, 'amount changed');
  }

  /** A command on the link (its id, amount and booksync reference), then the link's sync. */
  private async linkCommand(
    link: LinkState,
    cents: number,
    reason: string,
    record: (command: {
      paymentLinkId: string;
      commandId: string;
      amountCents: number;
      externalReferenceId: string;
    }) => Promise<unknown>,
  ): Promise<void> {
    const commandId = this.commandId();
    await this.refusable(() =>
      record({
        paymentLinkId: link.id,
        commandId,
        amountCents: cents,
        externalReferenceId: `booksync:${commandId}`,
      }),
    );
    await this.syncLink(link.id, reason);
  }

  async addDebitMemo(link: LinkState, cents: number): Promise<void> {
    await this.linkCommand(link, cents, 'debit memo', (command) =>
      this.activities.recordLinkDebitMemo({ ...command, description: `Late fee ${command.commandId}` }),
    );
  }

  /** The payer pays `cents` (undefined: what is left); `settle` settles it at once (a card's or ACH's settlement). */
  async pay(
    link: LinkState,
    method: 'Card' | 'ACH',
    cents: number | undefined,
    settle: boolean,
  ): Promise<void> {
    const payment = await this.sandboxCall('POST', `/sandbox/paymentLinks/${link.id}/pay`, {
      method,
      ...(cents === undefined ? {} : { amountCents: cents }),
    });
    this.payments.push({ id: payment.id, method });
    await this.syncPayment(payment.id);
    if (settle) await this.sandboxCall('POST', `/sandbox/payments/${payment.id}/settle`);
  }

  async refund(payment: PaymentState, cents: number | undefined): Promise<void> {
    await this.refusable(() =>
      this.service.refundPayment(payment.id, cents === undefined ? {} : { amountCents: cents }),
    );
    await this.syncPayment(payment.id);
  }

  async achReturn(payment: PaymentState): Promise<void> {
    await this.sandboxCall('POST', `/sandbox/payments/${payment.id}/achReturn`);
    await this.syncPayment(payment.id);
  }

  async externalPayment(link: LinkState, cents: number): Promise<void> {
    await this.linkCommand(link, cents, 'external payment', (command) =>
      this.activities.recordLinkExternalPayment({
        ...command,
        paidAt: new Date().toISOString().slice(0, 10),
      }),
    );
  }

  async depositCheck(cents: number): Promise<void> {
    const deposit = await this.sandboxCall('POST', '/sandbox/checkDeposits', { amountCents: cents });
    const state: DepositState = { id: deposit.id, paymentLinkOf: {}, commands: 0 };
    this.deposits.push(state);
    await this.syncDeposit(state, 'deposited');
  }

  /** The check-deposit workflow's apply command: the application (its link's invoice booked first), then a sync. */
  async applyDeposit(deposit: DepositState, link: LinkState, cents: number | undefined): Promise<void> {
    const commandId = this.commandId();
    const result = await this.refusable(() =>
      this.activities.applyCheckDepositToLink({
        checkDepositId: deposit.id,
        paymentLinkId: link.id,
        ...(cents === undefined ? {} : { amountCents: cents }),
        externalReferenceId: `booksync:${deposit.id}:${link.id}:${commandId}`,
        commandId,
      }),
    );
    deposit.paymentLinkOf[result.externalPaymentId] = link.id;
    await this.syncDeposit(deposit, 'apply');
  }

  async clearDeposit(deposit: DepositState): Promise<void> {
    await this.sandboxCall('POST', `/sandbox/checkDeposits/${deposit.id}/clear`);
    await this.syncDeposit(deposit, 'refresh');
  }

  /**
   * The bank returns the check: the workflow syncs (every application reversed), confirms the service voided
   * the applications, and with a fee configured records it once on the first affected link and has that
   * link's workflow mirror it (workflows/check-deposit.ts settleReturn).
   */
  async returnDeposit(deposit: DepositState, feeCents: number): Promise<void> {
    await this.sandboxCall('POST', `/sandbox/checkDeposits/${deposit.id}/return`);
    await this.syncDeposit(deposit, 'refresh');
    const applications = Object.entries(deposit.paymentLinkOf).map(([externalPaymentId, paymentLinkId]) => ({
      externalPaymentId,
      paymentLinkId,
    }));
    await this.activities.confirmApplicationsVoided({ checkDepositId: deposit.id, applications });
    const first = applications[0];
    if (feeCents > 0 && first) {
      await this.activities.recordReturnedCheckFee({
        checkDepositId: deposit.id,
        paymentLinkId: first.paymentLinkId,
        amountCents: feeCents,
        externalReferenceId: `booksync:returned-check-fee:${deposit.id}`,
      });
      await this.syncLink(first.paymentLinkId, `returned check fee of check deposit ${deposit.id}`);
    }
  }

  // ---- the push and what the books show ----

  /** Every target takes the ledger's new entries through the push activity; none may be refused. */
  async push(): Promise<void> {
    for (const target of this.targets) {
      for (;;) {
        const env = quietActivityEnvironment({ activityType: 'pushToTarget' });
        const result = await runActivity(env, this.activities.pushToTarget, {
          target: target.name,
          limit: 100,
        });
        if (result.failed.length > 0)
          throw new Error(`${target.name} refused: ${JSON.stringify(result.failed, null, 1)}`);
        if (!result.more) break;
      }
    }
  }

  /** Each mapped role's balance: the ledger's, and each target's (the mirror by account, the doubles by code). */
  async balances(): Promise<
    Record<'ledger' | 'mirror' | 'quickbooks' | 'xero', Record<AccountRole, number>>
  > {
    const byRole = async (ledger: EmbeddedLedger) => {
      const all = await ledger.balances();
      return Object.fromEntries(
        roles.map((r) => [r, all.find((b) => b.account === (Accounts[r] as AccountName))?.balanceCents ?? 0]),
      ) as Record<AccountRole, number>;
    };
    const atDouble = (balanceOf: (code: string) => number) =>
      Object.fromEntries(roles.map((r) => [r, balanceOf(defaultAccountCodes[r])])) as Record<
        AccountRole,
        number
      >;
    return {
      ledger: await byRole(this.ledger),
      mirror: await byRole(this.mirror),
      quickbooks: atDouble((code) => this.qbo.double.balanceOf(this.qbo.realmId, code)),
      xero: atDouble((code) => this.xero.double.balanceOf(this.xero.tenantId, code)),
    };
  }

  /** The ledger keys of a link's entries (its invoice, memos, money, reversals). */
  async keysOf(paymentLinkId: string): Promise<Set<string>> {
    return new Set((await this.ledger.entriesFor({ paymentLinkId })).map((e) => e.key));
  }

  /** What each place says the link still owes: the ledger's open item, the mirror's A/R lines of the link's entries, each double's open invoices. */
  async openAmounts(paymentLinkId: string) {
    const keys = await this.keysOf(paymentLinkId);
    const ledger =
      (await this.ledger.openItems('receivable')).find((i) => i.documentId === paymentLinkId)?.openCents ?? 0;
    let mirror = 0;
    for (const key of keys) {
      const entry = await this.mirror.get(key);
      for (const line of entry?.lines ?? [])
        if (line.account === Accounts.AccountsReceivable) mirror += line.amountCents;
    }
    const mine = (note: string) => markersIn(note).some((m) => keys.has(m.key));
    // QBO: an Invoice's Balance is what it still owes (a voided one: 0); the link's invoices are its own and
    // the charge invoices of its memos and reopened amounts.
    const quickbooks = this.qbo.double
      .all(this.qbo.realmId, 'Invoice')
      .filter((inv) => mine(String(inv.PrivateNote ?? '')))
      .reduce((sum, inv) => sum + Math.round(Number(inv.Balance) * 100), 0);
    // Xero: a sales invoice's AmountDue, a deleted or voided one owing nothing.
    const xero = this.xero.double
      .all(this.xero.tenantId, 'Invoices')
      .filter((inv) => inv.Type === 'ACCREC' && !['DELETED', 'VOIDED'].includes(String(inv.Status)))
      .filter((inv) => mine(markerTextOf(inv)))
      .reduce((sum, inv) => sum + Math.round(Number(inv.AmountDue) * 100), 0);
    return { ledger, mirror, quickbooks, xero };
  }
}
