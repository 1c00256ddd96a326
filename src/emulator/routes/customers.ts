import type { FastifyInstance } from 'fastify';
import {
  CreateCustomerRequest,
  ListCustomersQuery,
  UpdateCustomerRequest,
} from '../../service/schemas/index.js';
import { orgIdOf } from '../auth/authenticate.js';
import { createCustomer, getCustomerRow, listCustomers, updateCustomer } from '../domain/customers.js';
import { customerView } from '../views/money-views.js';
import type { RouteDeps } from './deps.js';
import { parseInput } from './input.js';

type CustomerParams = { customerId: string };

export function customerRoutes(app: FastifyInstance, { store }: RouteDeps): void {
  app.post('/customer', async (request, reply) => {
    const input = parseInput(CreateCustomerRequest, request.body);
    const orgId = orgIdOf(request);
    return reply.code(201).send(store.write((tx) => customerView(tx, createCustomer(tx, orgId, input))));
  });

  app.get<{ Params: CustomerParams }>('/customer/:customerId', async (request) => {
    const orgId = orgIdOf(request);
    return store.read((r) => customerView(r, getCustomerRow(r, orgId, request.params.customerId)));
  });

  app.put<{ Params: CustomerParams }>('/customer/:customerId', async (request) => {
    const input = parseInput(UpdateCustomerRequest, request.body);
    const orgId = orgIdOf(request);
    return store.write((tx) => customerView(tx, updateCustomer(tx, orgId, request.params.customerId, input)));
  });

  app.get('/customers', async (request) => {
    const query = parseInput(ListCustomersQuery, request.query, 'query');
    const orgId = orgIdOf(request);
    return store.read((r) => {
      const { rows, total } = listCustomers(r, orgId, query);
      return { customers: rows.map((row) => customerView(r, row)), totalResults: total };
    });
  });
}
