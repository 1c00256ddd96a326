import {
  CreateCustomerRequest,
  ListCustomersQuery,
  UpdateCustomerRequest,
} from '@booksync/service-contract/schemas/index';
import type { FastifyInstance } from 'fastify';
import { orgIdOf } from '../auth/authenticate.js';
import { createCustomer, getCustomerRow, listCustomers, updateCustomer } from '../domain/customers.js';
import { customerView } from '../views/money-views.js';
import type { RouteDeps } from './deps.js';
import { parseInput } from './input.js';
import { createRoute, getRoute, listRoute } from './resource.js';

type CustomerParams = { customerId: string };

export function customerRoutes(app: FastifyInstance, { store }: RouteDeps): void {
  createRoute(app, store, '/customer', CreateCustomerRequest, (tx, orgId, input) =>
    customerView(tx, createCustomer(tx, orgId, input)),
  );
  getRoute(app, store, '/customer/:customerId', (r, orgId, id) =>
    customerView(r, getCustomerRow(r, orgId, id)),
  );

  app.put<{ Params: CustomerParams }>('/customer/:customerId', async (request) => {
    const input = parseInput(UpdateCustomerRequest, request.body);
    const orgId = orgIdOf(request);
    return store.write((tx) => customerView(tx, updateCustomer(tx, orgId, request.params.customerId, input)));
  });

  listRoute(app, store, '/customers', ListCustomersQuery, 'customers', listCustomers, customerView);
}
