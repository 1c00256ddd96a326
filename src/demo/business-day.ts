import type { SandboxClient } from '@booksync/emulator/sandbox-client';
import type { CommandApiClient } from '../command-api/client.js';
import type { LedgerPort } from '../ledger/ledger-port.js';
import { dayInZone } from '../ledger/mapping/dates.js';
import type { ServiceClient } from '../service/client.js';

export interface BusinessDayParties {
  service: ServiceClient;
  sandbox: SandboxClient;
  commands: CommandApiClient;
  ledger: LedgerPort;
  /** BOOKS_TIME_ZONE: the day of what the business states itself (a check's paid date). */
  timeZone: string;
  /** One line per step, as it happens. */
  progress: (line: string) => void;
}

/** What the day created, so the caller can point at each flow in the Temporal UI. */
export interface BusinessDay {
  /** The emulator's time when the day began (unix ms): its events are the ones waited for. */
  startedAt: number;
  paymentLinkIds: Record<string, string>;
  paymentIds: { card: string; ach: string; achReturned: string };
  checkDepositIds: { cleared: string; returned: string };
  disbursementId: string;
  billPaymentId: string;
}

const usd = (cents: number) => `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`demo: gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * A realistic day of a small business, driven through the emulator's sandbox (what customers, banks and
 * vendors do) and booksync's command API (what the business does through booksync). The books follow
 * through webhooks and workflows; nothing here writes the ledger.
 */
export async function runBusinessDay({
  service,
  sandbox,
  commands,
  ledger,
  timeZone,
  progress,
}: BusinessDayParties): Promise<BusinessDay> {
  const step = (line: string) => progress(`  ✓ ${line}`);
  // The day's own events are the ones it waits for: an older delivery that failed for good (a stack killed
  // for longer than the sender's five attempts) is reconciliation's to repair, not the demo's to wait on.
  const dayStartedAt = Date.parse((await sandbox.clock()).now);
  const customer = await service.createCustomer({
    name: 'Bluebird Bakery',
    emails: ['books@bluebird.example'],
  });
  const invoices: Record<string, number> = {
    'INV-1001': 125_000,
    'INV-1002': 80_000,
    'INV-1003': 50_000,
    'INV-1004': 30_000,
    'INV-1005': 45_000,
    'INV-1006': 60_000,
    'INV-1007': 40_000,
  };
  const links: Record<string, string> = {};
  for (const [name, requestedAmountCents] of Object.entries(invoices)) {
    links[name] = (
      await service.createPaymentLink({ name, requestedAmountCents, customerId: customer.id })
    ).id;
  }
  step(`${Object.keys(invoices).length} invoices issued to ${customer.name}`);

  const card = await sandbox.payLink(links['INV-1001']!, 'Card');
  step(
    `INV-1001 paid by card: ${usd(card.amountInCents)} (card fee ${usd(card.platformFeeInCents)} absorbed)`,
  );
  const ach = await sandbox.payLink(links['INV-1002']!, 'ACH');
  step(`INV-1002 paid by ACH: ${usd(ach.amountInCents)}, open for its 60-day return window`);

  await commands.call(
    'recordExternalPayment',
    { id: links['INV-1003']! },
    {
      amountCents: 20_000,
      // The emulator's day, not the machine's: after a demo month closed, the emulator's clock is ahead.
      paidAt: dayInZone(dayStartedAt, timeZone),
      externalReferenceId: 'mailed-check-5521',
    },
  );
  step(`INV-1003: a mailed check of ${usd(20_000)} recorded as a partial external payment`);
  await commands.call(
    'recordDebitMemo',
    { id: links['INV-1003']! },
    { amountCents: 2_500, description: 'Late payment fee' },
  );
  step(`INV-1003: a late fee of ${usd(2_500)} added as a debit memo`);

  const { goodCheck, badCheck } = await checkDepositsOfTheDay({ service, sandbox, commands }, links, step);

  await sandbox.settlePayment(card.id);
  await service.refundPayment(card.id, { amountCents: 25_000, reason: 'Two cakes arrived damaged' });
  step(`INV-1001 partly refunded: ${usd(25_000)}`);

  const returned = await sandbox.payLink(links['INV-1007']!, 'ACH');
  await sandbox.returnAchPayment(returned.id);
  step(`INV-1007 paid by ACH, then returned by the customer's bank (${usd(returned.amountInCents)})`);

  const disbursement = await sandbox.batchDisbursement();
  await sandbox.succeedDisbursement(disbursement.id);
  step(`payout of ${usd(disbursement.amountInCents)} sent to the bank and accepted`);

  const billPayment = await vendorBillPaidByCheck({ service, sandbox }, step);

  progress('  … waiting for the webhooks and workflows to settle the books');
  await waitForQuietBooks(ledger, sandbox, dayStartedAt);
  return {
    startedAt: dayStartedAt,
    paymentLinkIds: links,
    paymentIds: { card: card.id, ach: ach.id, achReturned: returned.id },
    checkDepositIds: { cleared: goodCheck.id, returned: badCheck.id },
    disbursementId: disbursement.id,
    billPaymentId: billPayment.id,
  };
}

/** Two customer checks deposited and applied: one cleared by the bank, one returned unpaid. */
async function checkDepositsOfTheDay(
  { service, sandbox, commands }: Pick<BusinessDayParties, 'service' | 'sandbox' | 'commands'>,
  links: Record<string, string>,
  step: (line: string) => void,
): Promise<{ goodCheck: { id: string }; badCheck: { id: string } }> {
  const goodCheck = await sandbox.depositCheck(75_000, 'Bluebird check #1042');
  await commands.call(
    'applyDeposit',
    { checkDepositId: goodCheck.id },
    { paymentLinkId: links['INV-1004']! },
  );
  await commands.call(
    'applyDeposit',
    { checkDepositId: goodCheck.id },
    { paymentLinkId: links['INV-1005']! },
  );
  await until('the deposit applied to INV-1004 and INV-1005', async () => {
    const deposit = await service.getCheckDeposit(goodCheck.id);
    return deposit.applications.length === 2 ? deposit : undefined;
  });
  await sandbox.settleCheckDeposit(goodCheck.id, 'clear');
  // The bank's verdict on a check has no webhook: ask the deposit's workflow to look now.
  await commands.call('refreshDeposit', { checkDepositId: goodCheck.id });
  step(`check deposit of ${usd(75_000)} applied to INV-1004 and INV-1005, then cleared by the bank`);

  const badCheck = await sandbox.depositCheck(60_000, 'Bluebird check #1043');
  await commands.call('applyDeposit', { checkDepositId: badCheck.id }, { paymentLinkId: links['INV-1006']! });
  await until('the deposit applied to INV-1006', async () => {
    const deposit = await service.getCheckDeposit(badCheck.id);
    return deposit.applications.length === 1 ? deposit : undefined;
  });
  await sandbox.settleCheckDeposit(badCheck.id, 'return');
  await commands.call('refreshDeposit', { checkDepositId: badCheck.id });
  step(`check deposit of ${usd(60_000)} applied to INV-1006, then returned unpaid: INV-1006 is owed again`);
  return { goodCheck, badCheck };
}

/** A vendor onboarded to be paid by check, its bill paid: the check mailed, delivered, deposited. */
async function vendorBillPaidByCheck(
  { service, sandbox }: Pick<BusinessDayParties, 'service' | 'sandbox'>,
  step: (line: string) => void,
): Promise<{ id: string }> {
  const vendor = await service.createVendor({ name: 'Prairie Flour Mill', email: 'ar@prairie.example' });
  const method = await sandbox.submitVendorOnboardingForm(vendor.id, {
    type: 'CHECK',
    checkAddress: {
      name: 'Prairie Flour Mill',
      street: '1 Mill Rd',
      city: 'Salina',
      state: 'KS',
      zip: '67401',
    },
  });
  const bill = await service.createBill({
    vendorId: vendor.id,
    amountCents: 97_500,
    invoiceNumber: 'PFM-778',
  });
  const billPayment = await service.createBillPayment(bill.id, method.id);
  for (const moment of ['sent', 'delivered', 'deposited'] as const) {
    await sandbox.advanceBillCheck(billPayment.id, moment);
  }
  step(`bill PFM-778 of ${usd(97_500)} paid by check: mailed, delivered, deposited by the vendor`);
  return billPayment;
}

/** Every webhook of the day acknowledged and no new ledger entry for a few seconds: the day is in the books. */
export async function waitForQuietBooks(
  ledger: LedgerPort,
  sandbox: SandboxClient,
  since: number,
  quietMs = 4_000,
): Promise<void> {
  let lastCount = -1;
  let quietSince = Date.now();
  await until(
    'the books to settle',
    async () => {
      for await (const { event, attempts } of sandbox.allEvents()) {
        if (Date.parse(event.created_at) < since) continue;
        if (!attempts.some((a) => a.statusCode !== null && a.statusCode < 300)) return undefined;
      }
      const trial = await ledger.trialBalance();
      const count = trial.totalDebitCents;
      if (count !== lastCount) {
        lastCount = count;
        quietSince = Date.now();
        return undefined;
      }
      return Date.now() - quietSince >= quietMs ? true : undefined;
    },
    180_000,
  );
}
