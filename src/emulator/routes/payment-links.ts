import type { FastifyInstance } from 'fastify';
import {
  CreatePaymentLinkRequest,
  ListPaymentLinksQuery,
  RecordDebitMemoRequest,
  RecordExternalPaymentRequest,
  SendPaymentLinkRequest,
  UpdatePaymentLinkRequest,
} from '../../service/schemas/index.js';
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

  app.post<{ Params: LinkParams }>('/paymentLink/:paymentLinkId/externalPayment', async (request, reply) => {
    const input = parseInput(RecordExternalPaymentRequest, request.body);
    const orgId = orgIdOf(request);
    const { created, body } = store.write((tx) => {
      const result = recordExternalPayment(tx, orgId, request.params.paymentLinkId, input);
      return {
        created: result.created,
        body: {
          externalPayment: externalPaymentView(result.row),
          paymentLink: paymentLinkView(tx, result.link),
        },
      };
    });
    request.log.info(
      { paymentLinkId: request.params.paymentLinkId, externalPaymentId: body.externalPayment.id, created },
      'external payment recorded',
    );
    return reply.code(created ? 201 : 200).send(body);
  });

  app.post<{ Params: LinkParams & { externalPaymentId: string } }>(
    '/paymentLink/:paymentLinkId/externalPayment/:externalPaymentId/void',
    async (request) => {
      const orgId = orgIdOf(request);
      const { paymentLinkId, externalPaymentId } = request.params;
      const body = store.write((tx) => {
        const result = voidExternalPayment(tx, orgId, paymentLinkId, externalPaymentId);
        return {
          externalPayment: externalPaymentView(result.row),
          paymentLink: paymentLinkView(tx, result.link),
        };
      });
      request.log.info({ paymentLinkId, externalPaymentId }, 'external payment voided');
      return body;
    },
  );

  app.post<{ Params: LinkParams }>('/paymentLink/:paymentLinkId/debitMemo', async (request, reply) => {
    const input = parseInput(RecordDebitMemoRequest, request.body);
    const orgId = orgIdOf(request);
    const { created, body } = store.write((tx) => {
      const result = recordDebitMemo(tx, orgId, request.params.paymentLinkId, input);
      return {
        created: result.created,
        body: { debitMemo: debitMemoView(result.row), paymentLink: paymentLinkView(tx, result.link) },
      };
    });
    return reply.code(created ? 201 : 200).send(body);
  });

  app.post<{ Params: LinkParams & { debitMemoId: string } }>(
    '/paymentLink/:paymentLinkId/debitMemo/:debitMemoId/void',
    async (request) => {
      const orgId = orgIdOf(request);
      const { paymentLinkId, debitMemoId } = request.params;
      return store.write((tx) => {
        const result = voidDebitMemo(tx, orgId, paymentLinkId, debitMemoId);
        return { debitMemo: debitMemoView(result.row), paymentLink: paymentLinkView(tx, result.link) };
      });
    },
  );
}
