import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { orgIdOf } from '../auth/authenticate.js';
import type { Recorded } from '../domain/external-payments.js';
import type { PaymentLinkRow } from '../domain/rows.js';
import type { Store, Tx } from '../store/store.js';
import { paymentLinkView } from '../views/money-views.js';
import { parseInput } from './input.js';

export interface LinkRecordKind<S extends z.ZodType, Row extends { id: string }> {
  /** The path segment, the body's key and, with Id, the path parameter: externalPayment, debitMemo. */
  name: 'externalPayment' | 'debitMemo';
  /** For the log: "external payment". */
  what: string;
  body: S;
  record: (tx: Tx, orgId: string, linkId: string, input: z.infer<S>) => Recorded<Row>;
  void: (tx: Tx, orgId: string, linkId: string, id: string) => { row: Row; link: PaymentLinkRow };
  view: (row: Row) => unknown;
}

/**
 * 4.2 and decision “Debit memos”: record one on a link (201, or 200 with the existing one for a repeated reference, decision “Reference rule”) and
 * void it (idempotent, decision “Void an external payment”); both answer the record and the link as it is now.
 */
export function linkRecordRoutes<S extends z.ZodType, Row extends { id: string }>(
  app: FastifyInstance,
  store: Store,
  kind: LinkRecordKind<S, Row>,
): void {
  const base = `/paymentLink/:paymentLinkId/${kind.name}`;
  const idParam = `${kind.name}Id`;
  const answer = (tx: Tx, result: { row: Row; link: PaymentLinkRow }) => ({
    [kind.name]: kind.view(result.row),
    paymentLink: paymentLinkView(tx, result.link),
  });

  app.post<{ Params: { paymentLinkId: string } }>(base, async (request, reply) => {
    const input = parseInput(kind.body, request.body);
    const orgId = orgIdOf(request);
    const { paymentLinkId } = request.params;
    const { row, created, body } = store.write((tx) => {
      const result = kind.record(tx, orgId, paymentLinkId, input);
      return { row: result.row, created: result.created, body: answer(tx, result) };
    });
    request.log.info({ paymentLinkId, [idParam]: row.id, created }, `${kind.what} recorded`);
    return reply.code(created ? 201 : 200).send(body);
  });

  app.post<{ Params: Record<string, string> }>(`${base}/:${idParam}/void`, async (request) => {
    const orgId = orgIdOf(request);
    const paymentLinkId = request.params.paymentLinkId ?? '';
    const id = request.params[idParam] ?? '';
    const body = store.write((tx) => answer(tx, kind.void(tx, orgId, paymentLinkId, id)));
    request.log.info({ paymentLinkId, [idParam]: id }, `${kind.what} voided`);
    return body;
  });
}
