import { type CommandApiTarget, callCommandApi } from '../cli/command-api-client.js';

/**
 * The business's commands to booksync (the ingress's command API), typed for the demo: what a person does
 * through booksync rather than through the service, so the books follow at once. Each call gets its own
 * Idempotency-Key (callCommandApi), so a retried command is harmless.
 */
export class CommandApiClient {
  constructor(private readonly target: CommandApiTarget) {}

  #post(route: string, body: unknown) {
    return callCommandApi(this.target, 'POST', route, body) as Promise<{
      workflowId: string;
      commandId: string;
    }>;
  }

  applyCheckDeposit(checkDepositId: string, paymentLinkId: string, amountCents?: number) {
    return this.#post(`/commands/checkDeposits/${encodeURIComponent(checkDepositId)}/apply`, {
      paymentLinkId,
      ...(amountCents === undefined ? {} : { amountCents }),
    });
  }
  /** The bank's verdict on a check has no webhook: ask the deposit's workflow to look now. */
  refreshCheckDeposit(checkDepositId: string) {
    return this.#post(`/commands/checkDeposits/${encodeURIComponent(checkDepositId)}/refresh`, undefined);
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
