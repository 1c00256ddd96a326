import { fromResponse } from '@booksync/service-contract/errors';
import {
  BillPayment,
  CheckDeposit,
  Disbursement,
  EventEnvelope,
  Payment,
  type PaymentMethodType,
  VendorDeliveryMethod,
} from '@booksync/service-contract/schemas/index';
import { z } from 'zod';

const DeliveryAttempt = z.object({
  subscriptionId: z.string(),
  attempt: z.number().int(),
  attemptedAt: z.string(),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number(),
});
export const SandboxEvent = z.object({
  event: EventEnvelope,
  dispatchedAt: z.string().nullable(),
  attempts: z.array(DeliveryAttempt),
});
export type SandboxEvent = z.infer<typeof SandboxEvent>;
export const SandboxClock = z.object({ now: z.string(), offsetMs: z.number() });
export type SandboxClock = z.infer<typeof SandboxClock>;
const SandboxEventList = z.object({ events: z.array(SandboxEvent), totalResults: z.number().int() });

/**
 * The emulator's sandbox controls (packages/emulator/README.md): what the outside world does to the service, for the
 * demo, tests and benchmarks. Same bearer key as the API; moving the shared clock takes the emulator's admin
 * token instead (E17). Answers validated like the service client's.
 */
export class SandboxClient {
  readonly #baseUrl: string;
  readonly #apiKey: string;
  readonly #adminToken: string | undefined;

  constructor(options: { baseUrl: string; apiKey: string; adminToken?: string }) {
    this.#baseUrl = options.baseUrl.replace(/\/$/, '');
    this.#apiKey = options.apiKey;
    this.#adminToken = options.adminToken;
  }

  async #call<T>(
    method: 'GET' | 'POST',
    path: string,
    schema: z.ZodType<T>,
    body?: unknown,
    bearer = this.#apiKey,
  ): Promise<T> {
    const response = await fetch(`${this.#baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    if (!response.ok) throw fromResponse(response.status, text);
    return schema.parse(text === '' ? {} : JSON.parse(text));
  }

  /** A customer pays a link (default amount: what is left). */
  payLink(paymentLinkId: string, method: PaymentMethodType, amountCents?: number): Promise<Payment> {
    return this.#call('POST', `/sandbox/paymentLinks/${encodeURIComponent(paymentLinkId)}/pay`, Payment, {
      method,
      ...(amountCents === undefined ? {} : { amountCents }),
    });
  }
  settlePayment(paymentId: string): Promise<unknown> {
    return this.#call('POST', `/sandbox/payments/${encodeURIComponent(paymentId)}/settle`, z.unknown());
  }
  sendPaymentToNetwork(paymentId: string): Promise<unknown> {
    return this.#call(
      'POST',
      `/sandbox/payments/${encodeURIComponent(paymentId)}/sendToNetwork`,
      z.unknown(),
    );
  }
  returnAchPayment(paymentId: string): Promise<unknown> {
    return this.#call('POST', `/sandbox/payments/${encodeURIComponent(paymentId)}/achReturn`, z.unknown());
  }
  returnRefundCredit(refundId: string): Promise<unknown> {
    return this.#call('POST', `/sandbox/refunds/${encodeURIComponent(refundId)}/return`, z.unknown());
  }
  /** The settled payments no payout took yet, paid out to `to` (default: the organisation's bank account). */
  batchDisbursement(to?: { bankName?: string; accountNumberLastFour?: string }): Promise<Disbursement> {
    return this.#call('POST', '/sandbox/disbursements', Disbursement, to);
  }
  succeedDisbursement(disbursementId: string): Promise<unknown> {
    return this.#call(
      'POST',
      `/sandbox/disbursements/${encodeURIComponent(disbursementId)}/succeed`,
      z.unknown(),
    );
  }
  depositCheck(amountCents: number, memo?: string): Promise<CheckDeposit> {
    return this.#call('POST', '/sandbox/checkDeposits', CheckDeposit, {
      amountCents,
      ...(memo ? { memo } : {}),
    });
  }
  /** The bank's verdict on a deposited check. */
  settleCheckDeposit(checkDepositId: string, verdict: 'clear' | 'return' | 'reject'): Promise<unknown> {
    return this.#call(
      'POST',
      `/sandbox/checkDeposits/${encodeURIComponent(checkDepositId)}/${verdict}`,
      z.unknown(),
    );
  }
  /** A mailed vendor check moves on: sent, delivered, deposited, returned or failed. */
  advanceBillCheck(
    billPaymentId: string,
    step: 'sent' | 'delivered' | 'deposited' | 'returned' | 'failed',
  ): Promise<BillPayment> {
    return this.#call(
      'POST',
      `/sandbox/billPayments/${encodeURIComponent(billPaymentId)}/check/${step}`,
      z.unknown(),
    ).then(() => this.#call('GET', `/billPayment/${encodeURIComponent(billPaymentId)}`, BillPayment));
  }
  advanceBillAch(billPaymentId: string, step: 'sent' | 'succeeded' | 'failed'): Promise<unknown> {
    return this.#call(
      'POST',
      `/sandbox/billPayments/${encodeURIComponent(billPaymentId)}/ach/${step}`,
      z.unknown(),
    );
  }
  submitVendorOnboardingForm(vendorId: string, form: Record<string, unknown>): Promise<VendorDeliveryMethod> {
    return this.#call(
      'POST',
      `/sandbox/vendors/${encodeURIComponent(vendorId)}/onboardingForm`,
      VendorDeliveryMethod,
      form,
    );
  }
  authorizeCharge(chargeAuthorizationId: string, method: 'ACH' | 'Card'): Promise<unknown> {
    return this.#call(
      'POST',
      `/sandbox/chargeAuthorizations/${encodeURIComponent(chargeAuthorizationId)}/authorize`,
      z.unknown(),
      { method },
    );
  }
  clock(): Promise<SandboxClock> {
    return this.#call('GET', '/sandbox/clock', SandboxClock);
  }
  /** Moves the clock every organization shares: needs the admin token (E17). */
  async advanceClock(by: { days?: number; seconds?: number }): Promise<SandboxClock> {
    if (this.#adminToken === undefined) throw new Error('advanceClock needs the emulator admin token');
    return this.#call('POST', '/sandbox/clock/advance', SandboxClock, by, this.#adminToken);
  }
  /** Holds the organization's webhooks back until releaseWebhooks(). */
  holdWebhooks(): Promise<unknown> {
    return this.#call('POST', '/sandbox/webhooks/hold', z.unknown(), {});
  }
  /** Sends what was held, in the order the events happened or last first, each `times` times (1 to 3). */
  async releaseWebhooks(
    options: { order?: 'as-happened' | 'reversed'; times?: number } = {},
  ): Promise<number> {
    return (await this.#call('POST', '/sandbox/webhooks/release', z.object({ released: z.int() }), options))
      .released;
  }
  /** The delivery log, newest page first as the emulator lists it. */
  events(page = 1, pageSize = 100): Promise<{ events: SandboxEvent[]; totalResults: number }> {
    return this.#call('GET', `/sandbox/events?page=${page}&pageSize=${pageSize}`, SandboxEventList);
  }
  async *allEvents(): AsyncGenerator<SandboxEvent> {
    for (let page = 1; ; page++) {
      const { events, totalResults } = await this.events(page);
      yield* events;
      if (events.length === 0 || page * 100 >= totalResults) return;
    }
  }
}
