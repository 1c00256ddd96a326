import {
  CreateBillPaymentRequest,
  CreateBillRequest,
  CreateVendorRequest,
  UpdateVendorAchMethodRequest,
} from '@booksync/service-contract/schemas/index';
import type { FastifyInstance } from 'fastify';
import { orgIdOf } from '../auth/authenticate.js';
import {
  cancelBillPayment,
  createBill,
  createBillPayment,
  getBillPaymentRow,
  getBillRow,
} from '../domain/bills.js';
import { createVendor, deleteVendor, getVendorRow, setAchDeliveryMethod } from '../domain/vendors.js';
import { billPaymentView, billView, vendorView } from '../views/payables-views.js';
import type { RouteDeps } from './deps.js';
import { parseInput } from './input.js';
import { createRoute, getRoute } from './resource.js';

type VendorParams = { vendorId: string };

export function vendorRoutes(app: FastifyInstance, { store }: RouteDeps): void {
  createRoute(app, store, '/vendor', CreateVendorRequest, (tx, orgId, input) =>
    vendorView(tx, createVendor(tx, orgId, input)),
  );
  getRoute(app, store, '/vendor/:vendorId', (r, orgId, id) => vendorView(r, getVendorRow(r, orgId, id)));

  // 4.10, both paths; vendor.payout_method_updated (decision “Which transition emits which event”).
  for (const path of ['/vendor/:vendorId/deliveryMethod/ach', '/vendor/:vendorId/payoutMethod/ach']) {
    app.put<{ Params: VendorParams }>(path, async (request) => {
      const input = parseInput(UpdateVendorAchMethodRequest, request.body);
      const orgId = orgIdOf(request);
      const method = store.write((tx) => setAchDeliveryMethod(tx, orgId, request.params.vendorId, input));
      request.log.info(
        { vendorId: request.params.vendorId, deliveryMethodId: method.id },
        'vendor ACH method set',
      );
      return { vendorId: request.params.vendorId };
    });
  }

  app.delete<{ Params: VendorParams }>('/vendor/:vendorId', async (request) => {
    const orgId = orgIdOf(request);
    store.write((tx) => deleteVendor(tx, orgId, request.params.vendorId));
    return { message: `vendor ${request.params.vendorId} deleted` };
  });

  createRoute(app, store, '/bill', CreateBillRequest, (tx, orgId, input) =>
    billView(tx, createBill(tx, orgId, input)),
  );
  getRoute(app, store, '/bill/:billId', (r, orgId, id) => billView(r, getBillRow(r, orgId, id)));

  app.post<{ Params: { billId: string } }>('/bill/:billId/billPayment', async (request, reply) => {
    const input = parseInput(CreateBillPaymentRequest, request.body);
    const orgId = orgIdOf(request);
    const view = store.write((tx) =>
      billPaymentView(createBillPayment(tx, orgId, request.params.billId, input.deliveryMethodId)),
    );
    request.log.info({ billId: request.params.billId, billPaymentId: view.id }, 'bill payment created');
    return reply.code(201).send(view);
  });

  getRoute(app, store, '/billPayment/:billPaymentId', (r, orgId, id) =>
    billPaymentView(getBillPaymentRow(r, orgId, id)),
  );

  app.post<{ Params: { billPaymentId: string } }>('/billPayment/:billPaymentId/cancel', async (request) => {
    const orgId = orgIdOf(request);
    return store.write((tx) => billPaymentView(cancelBillPayment(tx, orgId, request.params.billPaymentId)));
  });
}
