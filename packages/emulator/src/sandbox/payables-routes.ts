import {
  CheckAddress,
  UpdateVendorAchMethodRequest,
  WireDetails,
} from '@booksync/service-contract/schemas/index';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { orgIdOf } from '../auth/authenticate.js';
import { advanceBillPayment, type BillPaymentTransition } from '../domain/bills.js';
import { authorizeChargeAuthorization, revokeChargeAuthorization } from '../domain/charge-authorizations.js';
import { setAchDeliveryMethod, setDeliveryMethod } from '../domain/vendors.js';
import type { RouteDeps } from '../routes/deps.js';
import { parseInput } from '../routes/input.js';
import { billPaymentView, chargeAuthorizationView, deliveryMethodView } from '../views/payables-views.js';

const transitions: Record<string, BillPaymentTransition> = {
  'check/sent': 'check.sent',
  'check/delivered': 'check.delivered',
  'check/deposited': 'check.deposited',
  'check/returned': 'check.returned',
  'check/failed': 'check.failed',
  'ach/sent': 'ach.sent',
  'ach/succeeded': 'ach.succeeded',
  'ach/failed': 'ach.failed',
};

const AuthorizeBody = z.object({ method: z.enum(['ACH', 'Card']).default('Card') });

/** The vendor's onboarding form: one of the three method kinds. */
const OnboardingBody = z.union([
  z.object({ type: z.literal('ACH') }).extend(UpdateVendorAchMethodRequest.shape),
  z.object({ type: z.literal('CHECK'), checkAddress: CheckAddress }),
  z.object({ type: z.literal('INTERNATIONAL_WIRE'), wireDetails: WireDetails }),
]);

/** Decision “Sandbox controls”: bill payments moving through the world, charge authorizations answered, vendor onboarding. */
export function sandboxPayablesRoutes(app: FastifyInstance, { store }: RouteDeps): void {
  for (const [path, transition] of Object.entries(transitions)) {
    app.post<{ Params: { billPaymentId: string } }>(
      `/sandbox/billPayments/:billPaymentId/${path}`,
      async (request) => {
        const orgId = orgIdOf(request);
        return store.write((tx) =>
          billPaymentView(advanceBillPayment(tx, orgId, request.params.billPaymentId, transition)),
        );
      },
    );
  }

  app.post<{ Params: { id: string } }>('/sandbox/chargeAuthorizations/:id/authorize', async (request) => {
    const input = parseInput(AuthorizeBody, request.body);
    const orgId = orgIdOf(request);
    return store.write((tx) =>
      chargeAuthorizationView(authorizeChargeAuthorization(tx, orgId, request.params.id, input.method)),
    );
  });

  app.post<{ Params: { id: string } }>('/sandbox/chargeAuthorizations/:id/revoke', async (request) => {
    const orgId = orgIdOf(request);
    return store.write((tx) =>
      chargeAuthorizationView(revokeChargeAuthorization(tx, orgId, request.params.id)),
    );
  });

  app.post<{ Params: { vendorId: string } }>(
    '/sandbox/vendors/:vendorId/onboardingForm',
    async (request, reply) => {
      const input = parseInput(OnboardingBody, request.body);
      const orgId = orgIdOf(request);
      const { vendorId } = request.params;
      const method = store.write((tx) =>
        input.type === 'ACH'
          ? setAchDeliveryMethod(tx, orgId, vendorId, input)
          : input.type === 'CHECK'
            ? setDeliveryMethod(tx, orgId, vendorId, { type: 'CHECK', checkAddress: input.checkAddress })
            : setDeliveryMethod(tx, orgId, vendorId, {
                type: 'INTERNATIONAL_WIRE',
                wireDetails: input.wireDetails,
              }),
      );
      return reply.code(201).send(deliveryMethodView(method));
    },
  );
}
