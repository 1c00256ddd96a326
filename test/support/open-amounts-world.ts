// biome-ignore-all lint/suspicious/noExplicitAny: sandbox routes answer untyped JSON

import type { Call, Harness } from '@booksync/emulator/harness';
import { ServiceError } from '@booksync/service-contract/errors';
import type { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { markerTextOf, type XeroDouble } from '@booksync/vendor-doubles/xero/double';
import { ApplicationFailure } from '@temporalio/common';
import { createActivities } from '../../src/flows/activities.js';
import { SqliteTargetIndex } from '../../src/flows/push/target-index.js';
import { type AccountName, Accounts } from '../../src/ledger/chart-of-accounts.js';
import { paymentsToDeposit } from '../../src/ledger/deposit-slips.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { silentLogger } from '../../src/logging/logger.js';
import { ServiceClient } from '../../src/service/client.js';
import { type AccountRole, defaultAccountCodes } from '../../src/targets/account-mapping.js';
import { LedgerMirrorTarget } from '../../src/targets/ledger-mirror-target.js';
import { markersIn } from '../../src/targets/markers.js';
import type { TokenCipher } from '../../src/targets/oauth/token-cipher.js';
import { serviceReferences } from '../../src/targets/service-references.js';
import type { AccountingTarget } from '../../src/targets/target-port.js';
import { quietActivityEnvironment, runActivity } from '../flows/fakes.js';
import { quickBooksCompany } from './quickbooks/company.js';
import { type TrytonServer, trytonTarget } from './tryton.js';
import { xeroOrganisation } from './xero/organisation.js';

// One business's books for the open-amounts property (test/targets/open-amounts.property.test.ts and
// test/targets/tryton/open-amounts.property.test.ts): its own organization at the service emulator (real
// HTTP), a real EmbeddedLedger in memory, the real ServiceClient and the real activities, and three targets
// fed by the production push activity (pushToTarget, in Temporal's MockActivityEnvironment: no server is
// needed for one activity): a ledger mirror, a new QuickBooks company in the QBO double and a new
// organisation in the Xero double; with `tryton`, a real Tryton too (its database is shared by the file's
// worlds: its balances are read against those it had when the world opened). Each business step is the
// service call a person or the payer makes, then the activities the workflow that hears of it calls
// (src/flows/payment/workflow.ts, payment-link.ts, check-deposit.ts, deposit-slip.ts), in the workflow's order; the
// month's close is the bookkeeper's: the ledger's (closeBooks) and each target's own lock.

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

/** A day as YYYY-MM-DD (UTC, the books' zone here). */
const dayOf = (date: Date) => date.toISOString().slice(0, 10);

/** The last day of the month holding `day`. */
function monthEnd(day: string): string {
  const [year, month] = day.split('-').map(Number) as [number, number];
  return dayOf(new Date(Date.UTC(year, month, 0)));
}

/** The day after `day`. */
const dayAfter = (day: string) => dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000));

export class OpenAmountsWorld {
  /** The links that are invoices (not reusable). */
  readonly links: LinkState[] = [];
  /** Reusable links: a standing price, each payment on one a sale (nothing owed, no invoice). */
  readonly reusableLinks: LinkState[] = [];
  readonly deposits: DepositState[] = [];
  readonly payments: PaymentState[] = [];
  readonly customers: string[] = [];
  /** The last day of the month the bookkeeper closed (null while every month is open). */
  closedThrough: string | null = null;
  private commands = 0;
  private slips = 0;

  readonly service: ServiceClient;
  private readonly sandbox: Call;
  readonly ledger: EmbeddedLedger;
  readonly mirror: EmbeddedLedger;
  readonly activities: ReturnType<typeof createActivities>;
  readonly targets: AccountingTarget[];
  readonly qbo: { double: QuickBooksDouble; realmId: string };
  readonly xero: { double: XeroDouble; tenantId: string };
  /** The real Tryton, with the balance of each mapped account's code when the world opened. */
  readonly tryton: { server: TrytonServer; before: Record<string, number> } | null;
  private constructor(
    service: ServiceClient,
    sandbox: Call,
    ledger: EmbeddedLedger,
    mirror: EmbeddedLedger,
    activities: ReturnType<typeof createActivities>,
    targets: AccountingTarget[],
    qbo: { double: QuickBooksDouble; realmId: string },
    xero: { double: XeroDouble; tenantId: string },
    tryton: { server: TrytonServer; before: Record<string, number> } | null,
  ) {
    this.service = service;
    this.sandbox = sandbox;
    this.ledger = ledger;
    this.mirror = mirror;
    this.activities = activities;
    this.targets = targets;
    this.qbo = qbo;
    this.xero = xero;
    this.tryton = tryton;
  }

  /** `options.targets`: each target as the activities see it (a decorator of it: test/targets/overlapping-attempts.test.ts). */
  static async open(
    harness: Harness,
    doubles: { qbo: QuickBooksDouble; xero: XeroDouble },
    cipher: TokenCipher,
    options: {
      targets?: (target: AccountingTarget) => AccountingTarget;
      /** More targets beside the three (a real Tryton: overlapping-attempts.test.ts). */
      more?: AccountingTarget[];
      /** A real Tryton as a fourth target, whose open amounts and balances are read too. */
      tryton?: TrytonServer;
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
      ...(options.tryton ? [trytonTarget(options.tryton)] : []),
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
      options.tryton
        ? {
            server: options.tryton,
            before: await options.tryton.balances(Object.values(defaultAccountCodes)),
          }
        : null,
    );
    for (const name of ['Acme Corp', 'Bolt Ltd'])
      world.customers.push((await service.createCustomer({ name })).id);
    return world;
  }

  async close(): Promise<void> {
    // Tryton's database outlives the world: the month it closed is opened again for the next world.
    if (this.tryton && this.closedThrough)
      await this.tryton.server.setPeriodState(this.closedThrough, 'reopen');
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

  /** A reusable link (a standing price): nothing is booked for it until money is received on it. */
  async createReusableLink(cents: number, customer: number): Promise<void> {
    const customerId = this.customers[customer % this.customers.length] as string;
    const link = await this.service.createPaymentLink({
      name: `Shop ${1 + this.reusableLinks.length}`,
      requestedAmountCents: cents,
      customerId,
      reusable: true,
    });
    this.reusableLinks.push({ id: link.id, customerId });
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

  /** The day the books are at: today, or the first day after the closed month. */
  today(): string {
    const today = dayOf(new Date());
    return this.closedThrough !== null && today <= this.closedThrough ? dayAfter(this.closedThrough) : today;
  }

  /**
   * The external payments still in Checks To Deposit (at most `count`, oldest first) taken to the bank on one
   * deposit slip (the deposit-slip workflow's one activity), dated the books' day. False when none is held.
   */
  async depositSlip(count: number): Promise<boolean> {
    const held = (await paymentsToDeposit(this.ledger)).slice(0, Math.max(1, count));
    if (held.length === 0) return false;
    this.slips++;
    // Unique beyond this world: a Tryton database is shared by worlds, and a slip's record is found by its number.
    const outcome = await this.activities.bookDepositSlip({
      reference: `slip-${this.customers[0]}-${this.slips}`,
      date: this.today(),
      payments: held.map((p) => ({ paymentLinkId: p.paymentLinkId, externalPaymentId: p.externalPaymentId })),
    });
    if (outcome.status !== 'BOOKED') throw new Error(`deposit slip refused: ${outcome.reasons.join('; ')}`);
    return true;
  }

  /**
   * The bookkeeper closes the month it is (the books through its last day, then QuickBooks' BookCloseDate,
   * Xero's period lock date and Tryton's period, as each target's bookkeeper does): what happens after is
   * booked on the first day of the next month, and a reversal of what was booked before it is a document of
   * its own in that month. False when the month is closed already.
   */
  async closeMonth(): Promise<boolean> {
    if (this.closedThrough !== null) return false;
    const through = monthEnd(dayOf(new Date()));
    await this.ledger.closeBooks(through, { reason: 'month closed', forced: false });
    this.closedThrough = through;
    this.qbo.double.closeBooks(this.qbo.realmId, through);
    this.xero.double.lockDates(this.xero.tenantId, { period: through });
    await this.tryton?.server.setPeriodState(through, 'close');
    return true;
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
   * link's workflow mirror it (src/flows/check-deposit/workflow.ts settleReturn).
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
    Record<'ledger' | 'mirror' | 'quickbooks' | 'xero', Record<AccountRole, number>> & {
      tryton?: Record<AccountRole, number>;
    }
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
      ...(this.tryton ? { tryton: await this.trytonBalances(this.tryton) } : {}),
    };
  }

  /** Tryton's balance of each mapped account, less what it was when the world opened (Tryton's database is shared). */
  private async trytonBalances(tryton: NonNullable<OpenAmountsWorld['tryton']>) {
    const now = await tryton.server.balances(Object.values(defaultAccountCodes));
    return Object.fromEntries(
      roles.map((r) => {
        const code = defaultAccountCodes[r];
        return [r, (now[code] ?? 0) - (tryton.before[code] ?? 0)];
      }),
    ) as Record<AccountRole, number>;
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
    // Tryton: the amount to pay of the link's invoices (its own and its charge invoices), each line once.
    // And what its invoices owe, credit notes left out, as QuickBooks' and Xero's invoices are read.
    const tryton = this.tryton
      ? {
          tryton: await this.tryton.server.amountToPay(paymentLinkId),
          trytonInvoices: await this.tryton.server.invoicesOwe(paymentLinkId),
        }
      : {};
    return { ledger, mirror, quickbooks, xero, ...tryton };
  }
}
