import {
  CreatePaymentLinkRequest,
  ListPaymentLinksQuery,
  RecordDebitMemoRequest,
  RecordExternalPaymentRequest,
  SendPaymentLinkRequest,
  UpdatePaymentLinkRequest,
} from '@booksync/service-contract/schemas/index';
import type { FastifyInstance } from 'fastify';
import { orgIdOf } from '../auth/authenticate.js';
import { recordDebitMemo, voidDebitMemo } from '../domain/debit-memos.js';
import { recordExternalPayment, voidExternalPayment } from '../domain/external-payments.js';
import { sendPaymentLink } from '../domain/link-sends.js';
import {
  archivePaymentLink,
  createPaymentLink,
  getPaymentLinkRow,
  listPaymentLinks,
  updatePaymentLink,
} from '../domain/payment-links.js';
import { debitMemoView, externalPaymentView, paymentLinkView } from '../views/money-views.js';
import type { RouteDeps } from './deps.js';
import { parseInput } from './input.js';
import { linkRecordRoutes } from './link-records.js';
import { createRoute, getRoute, listRoute } from './resource.js';

type LinkParams = { paymentLinkId: string };

export function paymentLinkRoutes(app: FastifyInstance, { store }: RouteDeps): void {
  createRoute(
    app,
    store,
    '/paymentLink',
    CreatePaymentLinkRequest,
    (tx, orgId, input) => paymentLinkView(tx, createPaymentLink(tx, orgId, input)),
    (request, view) => request.log.info({ paymentLinkId: view.id }, 'payment link created'),
  );
  getRoute(app, store, '/paymentLink/:paymentLinkId', (r, orgId, id) =>
    paymentLinkView(r, getPaymentLinkRow(r, orgId, id)),
  );
  listRoute(
    app,
    store,
    '/paymentLinks',
    ListPaymentLinksQuery,
    'paymentLinks',
    listPaymentLinks,
    paymentLinkView,
  );

  app.put<{ Params: LinkParams }>('/paymentLink/:paymentLinkId', async (request) => {
    const input = parseInput(UpdatePaymentLinkRequest, request.body);
    const orgId = orgIdOf(request);
    return store.write((tx) =>
      paymentLinkView(tx, updatePaymentLink(tx, orgId, request.params.paymentLinkId, input)),
    );
  });

  app.post<{ Params: LinkParams }>('/paymentLink/:paymentLinkId/archive', async (request) => {
    const orgId = orgIdOf(request);
    return store.write((tx) =>
      paymentLinkView(tx, archivePaymentLink(tx, orgId, request.params.paymentLinkId)),
    );
  });

  app.post<{ Params: LinkParams }>('/paymentLink/:paymentLinkId/send', async (request) => {
    const input = parseInput(SendPaymentLinkRequest, request.body);
    const orgId = orgIdOf(request);
    return store.write((tx) => sendPaymentLink(tx, orgId, request.params.paymentLinkId, input));
  });

  linkRecordRoutes(app, store, {
    name: 'externalPayment',
    what: 'external payment',
    body: RecordExternalPaymentRequest,
    record: recordExternalPayment,
    void: voidExternalPayment,
    view: externalPaymentView,
  });
  linkRecordRoutes(app, store, {
    name: 'debitMemo',
    what: 'debit memo',
    body: RecordDebitMemoRequest,
    record: recordDebitMemo,
    void: voidDebitMemo,
    view: debitMemoView,
  });
}
