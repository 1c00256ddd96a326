import { randomUUID } from 'node:crypto';

/**
 * The business's commands to booksync (the ingress's command API): what a person does through booksync
 * rather than through the service, so the books follow at once. One Idempotency-Key per call makes a
 * retried command harmless.
 */
export class CommandApiClient {
  readonly #baseUrl: string;
  readonly #apiKey: string;

  constructor(options: { baseUrl: string; apiKey: string }) {
    this.#baseUrl = options.baseUrl.replace(/\/$/, '');
    this.#apiKey = options.apiKey;
  }

  async #post(path: string, body: unknown = {}): Promise<{ workflowId: string; commandId: string }> {
    const response = await fetch(`${this.#baseUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${this.#apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    if (!response.ok) {
      const error = (() => {
        try {
          return (JSON.parse(text) as { error?: string }).error;
        } catch {
          return text;
        }
      })();
      throw new Error(`command ${path} refused (${response.status}): ${error}`);
    }
    return JSON.parse(text) as { workflowId: string; commandId: string };
  }

  applyCheckDeposit(checkDepositId: string, paymentLinkId: string, amountCents?: number) {
    return this.#post(`/commands/checkDeposits/${encodeURIComponent(checkDepositId)}/apply`, {
      paymentLinkId,
      ...(amountCents === undefined ? {} : { amountCents }),
    });
  }
  recordExternalPayment(
    paymentLinkId: string,
    payment: { amountCents: number; paidAt: string; externalReferenceId?: string },
  ) {
    return this.#post(
      `/commands/paymentLinks/${encodeURIComponent(paymentLinkId)}/externalPayments`,
      payment,
    );
  }
  recordDebitMemo(paymentLinkId: string, memo: { amountCents: number; description: string }) {
    return this.#post(`/commands/paymentLinks/${encodeURIComponent(paymentLinkId)}/debitMemos`, memo);
  }
}
