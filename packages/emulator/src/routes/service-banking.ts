import {
  ApplyCheckDepositRequest,
  DepositCheckFields,
  ListCheckDepositsQuery,
  MAX_FILE_BYTES,
  type Permission,
} from '@booksync/service-contract/schemas/index';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { orgIdOf, requireActiveBanking, requirePermission } from '../auth/authenticate.js';
import {
  applyCheckDeposit,
  depositCheck,
  getCheckDepositRow,
  listCheckDeposits,
} from '../domain/check-deposits.js';
import { badRequest } from '../errors.js';
import { checkDepositView, externalPaymentView, paymentLinkView } from '../views/money-views.js';
import type { RouteDeps } from './deps.js';
import { parseInput } from './input.js';
import { readMultipart } from './multipart.js';

/** Part 5 rule 4 before rule 5 (decision “Team members and permissions”). */
function guard(request: FastifyRequest, permission: Permission): string {
  requireActiveBanking(request);
  requirePermission(request, permission);
  return orgIdOf(request);
}

export function serviceBankingRoutes(app: FastifyInstance, { store }: RouteDeps): void {
  app.get('/serviceBanking/checkDeposits', async (request) => {
    const orgId = guard(request, 'BANKING_VIEW');
    const query = parseInput(ListCheckDepositsQuery, request.query, 'query');
    return store.read((r) => {
      const { rows, total } = listCheckDeposits(r, orgId, query);
      return { checkDeposits: rows.map((row) => checkDepositView(r, row)), totalResults: total };
    });
  });

  app.get<{ Params: { checkDepositId: string } }>(
    '/serviceBanking/checkDeposits/:checkDepositId',
    async (request) => {
      const orgId = guard(request, 'BANKING_VIEW');
      return store.read((r) =>
        checkDepositView(r, getCheckDepositRow(r, orgId, request.params.checkDepositId)),
      );
    },
  );

  // Decision “Check deposits”: multipart, amountCents + frontImage + backImage (10 MiB each) + memo?.
  app.post('/serviceBanking/checkDeposits', async (request, reply) => {
    const orgId = guard(request, 'BANKING_MANAGE');
    const form = await readMultipart(request, MAX_FILE_BYTES);
    if (!form.files.has('frontImage')) throw badRequest('invalid frontImage: required');
    if (!form.files.has('backImage')) throw badRequest('invalid backImage: required');
    const fields = parseInput(DepositCheckFields, form.fields);
    const view = store.write((tx) => checkDepositView(tx, depositCheck(tx, orgId, fields)));
    request.log.info({ checkDepositId: view.id }, 'check deposited');
    return reply.code(201).send(view);
  });

  // 4.1; always 200, a repeat of an identical reference included (part 7).
  app.post<{ Params: { checkDepositId: string } }>(
    '/serviceBanking/checkDeposits/:checkDepositId/apply',
    async (request) => {
      const orgId = guard(request, 'BANKING_MANAGE');
      const input = parseInput(ApplyCheckDepositRequest, request.body);
      const body = store.write((tx) => {
        const result = applyCheckDeposit(tx, orgId, request.params.checkDepositId, input);
        return {
          externalPayment: externalPaymentView(result.row),
          paymentLink: paymentLinkView(tx, result.link),
        };
      });
      request.log.info(
        {
          checkDepositId: request.params.checkDepositId,
          paymentLinkId: input.paymentLinkId,
          externalPaymentId: body.externalPayment.id,
        },
        'check deposit applied',
      );
      return body;
    },
  );
}
