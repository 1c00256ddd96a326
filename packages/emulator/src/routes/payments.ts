import {
  ListDisbursementsQuery,
  ListPaymentsQuery,
  RefundPaymentRequest,
} from '@booksync/service-contract/schemas/index';
import type { FastifyInstance } from 'fastify';
import { orgIdOf, requirePermission } from '../auth/authenticate.js';
import { getDisbursementRow, listDisbursements } from '../domain/disbursements.js';
import { getPaymentRow, listPayments, refundPayment } from '../domain/payments.js';
import { disbursementView, paymentView } from '../views/money-views.js';
import type { RouteDeps } from './deps.js';
import { parseInput } from './input.js';
import { getRoute, listRoute } from './resource.js';

export function paymentRoutes(app: FastifyInstance, { store }: RouteDeps): void {
  getRoute(app, store, '/payment/:paymentId', (r, orgId, id) => paymentView(r, getPaymentRow(r, orgId, id)));
  listRoute(app, store, '/payments', ListPaymentsQuery, 'payments', listPayments, paymentView);

  // 4.4 with decisions “Settlement and voids” to “Refund amount”: needs PAYMENTS_REFUND.
  app.post<{ Params: { paymentId: string } }>('/payment/:paymentId/refund', async (request) => {
    requirePermission(request, 'PAYMENTS_REFUND');
    const input = parseInput(RefundPaymentRequest, request.body);
    const orgId = orgIdOf(request);
    const payment = store.write((tx) =>
      paymentView(tx, refundPayment(tx, orgId, request.params.paymentId, input)),
    );
    request.log.info({ paymentId: payment.id, status: payment.status }, 'payment refunded');
    return payment;
  });

  getRoute(app, store, '/disbursement/:disbursementId', (r, orgId, id) =>
    disbursementView(r, getDisbursementRow(r, orgId, id)),
  );
  listRoute(
    app,
    store,
    '/disbursements',
    ListDisbursementsQuery,
    'disbursements',
    listDisbursements,
    (r, row) => disbursementView(r, row),
  );
}
