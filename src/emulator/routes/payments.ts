import type { FastifyInstance } from 'fastify';
import {
  ListDisbursementsQuery,
  ListPaymentsQuery,
  RefundPaymentRequest,
} from '../../service/schemas/index.js';
import { orgIdOf, requirePermission } from '../auth/authenticate.js';
import { getDisbursementRow, listDisbursements } from '../domain/disbursements.js';
import { getPaymentRow, listPayments, refundPayment } from '../domain/payments.js';
import { disbursementView, paymentView } from '../views/money-views.js';
import type { RouteDeps } from './deps.js';
import { parseInput } from './input.js';

export function paymentRoutes(app: FastifyInstance, { store }: RouteDeps): void {
  app.get<{ Params: { paymentId: string } }>('/payment/:paymentId', async (request) => {
    const orgId = orgIdOf(request);
    return store.read((r) => paymentView(r, getPaymentRow(r, orgId, request.params.paymentId)));
  });

  app.get('/payments', async (request) => {
    const query = parseInput(ListPaymentsQuery, request.query, 'query');
    const orgId = orgIdOf(request);
    return store.read((r) => {
      const { rows, total } = listPayments(r, orgId, query);
      return { payments: rows.map((row) => paymentView(r, row)), totalResults: total };
    });
  });

  // 4.4 with D17-D18: needs PAYMENTS_REFUND.
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

  app.get<{ Params: { disbursementId: string } }>('/disbursement/:disbursementId', async (request) => {
    const orgId = orgIdOf(request);
    return store.read((r) =>
      disbursementView(r, getDisbursementRow(r, orgId, request.params.disbursementId)),
    );
  });

  app.get('/disbursements', async (request) => {
    const query = parseInput(ListDisbursementsQuery, request.query, 'query');
    const orgId = orgIdOf(request);
    return store.read((r) => {
      const { rows, total } = listDisbursements(r, orgId, query);
      return { disbursements: rows.map((row) => disbursementView(r, row)), totalResults: total };
    });
  });
}
