import { DepositCheckFields } from '@booksync/service-contract/schemas/index';
import type { FastifyInstance } from 'fastify';
import { orgIdOf } from '../auth/authenticate.js';
import { clearCheckDeposit, depositCheck, returnCheckDeposit } from '../domain/check-deposits.js';
import type { RouteDeps } from '../routes/deps.js';
import { createRoute } from '../routes/resource.js';
import { checkDepositView } from '../views/money-views.js';

type DepositParams = { checkDepositId: string };

/** Decision “Sandbox controls”: deposit a check without images, and the bank's verdicts. */
export function sandboxBankingRoutes(app: FastifyInstance, { store }: RouteDeps): void {
  createRoute(app, store, '/sandbox/checkDeposits', DepositCheckFields, (tx, orgId, input) =>
    checkDepositView(tx, depositCheck(tx, orgId, input)),
  );

  app.post<{ Params: DepositParams }>('/sandbox/checkDeposits/:checkDepositId/clear', async (request) => {
    const orgId = orgIdOf(request);
    return store.write((tx) =>
      checkDepositView(tx, clearCheckDeposit(tx, orgId, request.params.checkDepositId)),
    );
  });

  for (const [path, outcome] of [
    ['return', 'RETURNED'],
    ['reject', 'REJECTED'],
  ] as const) {
    app.post<{ Params: DepositParams }>(`/sandbox/checkDeposits/:checkDepositId/${path}`, async (request) => {
      const orgId = orgIdOf(request);
      return store.write((tx) =>
        checkDepositView(tx, returnCheckDeposit(tx, orgId, request.params.checkDepositId, outcome).deposit),
      );
    });
  }
}
