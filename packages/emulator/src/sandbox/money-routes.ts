import { PaymentMethodType, positiveCents } from '@booksync/service-contract/schemas/index';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { orgIdOf } from '../auth/authenticate.js';
import { heldBalanceCents } from '../domain/balance.js';
import { batchDisbursement, settleDisbursement } from '../domain/disbursements.js';
import { listLinkSends } from '../domain/link-sends.js';
import {
  payPaymentLink,
  returnAchPayment,
  returnRefundCredit,
  sendAchToNetwork,
  settlePayment,
} from '../domain/payments.js';
import type { RouteDeps } from '../routes/deps.js';
import { parseInput } from '../routes/input.js';
import { disbursementView, paymentView } from '../views/money-views.js';

const PayBody = z.object({ method: PaymentMethodType, amountCents: positiveCents.optional() });
/** The account a payout goes to, when not the organisation's own (a business with a second bank account). */
const PayoutBody = z.object({
  bankName: z.string().trim().min(1).max(100).optional(),
  accountNumberLastFour: z
    .string()
    .regex(/^\d{4}$/, 'the last four digits of the account number')
    .optional(),
});

/** Decision “Sandbox controls”: a customer paying, settlement, returns, disbursements (Stripe-test-helper style). */
export function sandboxMoneyRoutes(app: FastifyInstance, { store }: RouteDeps): void {
  app.post<{ Params: { paymentLinkId: string } }>(
    '/sandbox/paymentLinks/:paymentLinkId/pay',
    async (request, reply) => {
      const input = parseInput(PayBody, request.body);
      const orgId = orgIdOf(request);
      const payment = store.write((tx) =>
        paymentView(tx, payPaymentLink(tx, orgId, request.params.paymentLinkId, input)),
      );
      request.log.info(
        { paymentId: payment.id, paymentLinkId: request.params.paymentLinkId },
        'sandbox payment made',
      );
      return reply.code(201).send(payment);
    },
  );

  app.get<{ Params: { paymentLinkId: string } }>(
    '/sandbox/paymentLinks/:paymentLinkId/sends',
    async (request) => {
      const orgId = orgIdOf(request);
      const rows = store.read((r) => listLinkSends(r, orgId, request.params.paymentLinkId));
      return {
        sends: rows.map((row) => ({
          email: row.email,
          name: row.name,
          phoneNumber: row.phone_number,
          sms: row.sms === 1,
          kind: row.kind,
          sentAt: row.created_at,
        })),
      };
    },
  );

  const paymentAction = (path: string, action: typeof settlePayment) =>
    app.post<{ Params: { paymentId: string } }>(`/sandbox/payments/:paymentId/${path}`, async (request) => {
      const orgId = orgIdOf(request);
      return store.write((tx) => paymentView(tx, action(tx, orgId, request.params.paymentId)));
    });
  paymentAction('settle', settlePayment);
  paymentAction('sendToNetwork', sendAchToNetwork);
  paymentAction('achReturn', returnAchPayment);

  app.post<{ Params: { refundId: string } }>('/sandbox/refunds/:refundId/return', async (request) => {
    const orgId = orgIdOf(request);
    return store.write((tx) => paymentView(tx, returnRefundCredit(tx, orgId, request.params.refundId)));
  });

  app.post('/sandbox/disbursements', async (request, reply) => {
    const to = parseInput(PayoutBody, request.body);
    const orgId = orgIdOf(request);
    return reply.code(201).send(store.write((tx) => disbursementView(tx, batchDisbursement(tx, orgId, to))));
  });

  for (const [path, outcome] of [
    ['succeed', 'SUCCEEDED'],
    ['fail', 'FAILED'],
  ] as const) {
    app.post<{ Params: { disbursementId: string } }>(
      `/sandbox/disbursements/:disbursementId/${path}`,
      async (request) => {
        const orgId = orgIdOf(request);
        return store.write((tx) =>
          disbursementView(tx, settleDisbursement(tx, orgId, request.params.disbursementId, outcome)),
        );
      },
    );
  }

  /** The held-balance ledger (undisbursed settled money), for conservation checks. */
  app.get('/sandbox/balance', async (request) => {
    const orgId = orgIdOf(request);
    return { heldBalanceCents: store.read((r) => heldBalanceCents(r, orgId)) };
  });
}
