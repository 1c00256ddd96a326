import {
  MAX_FILE_BYTES,
  RequestChargeAuthorizationRequest,
  UploadFileFields,
} from '@booksync/service-contract/schemas/index';
import type { FastifyInstance } from 'fastify';
import { orgIdOf } from '../auth/authenticate.js';
import { getChargeAuthorizationRow, requestChargeAuthorization } from '../domain/charge-authorizations.js';
import { uploadFile } from '../domain/files.js';
import { badRequest } from '../errors.js';
import { chargeAuthorizationView, fileView } from '../views/payables-views.js';
import type { RouteDeps } from './deps.js';
import { parseInput } from './input.js';
import { readMultipart } from './multipart.js';

/** 4.9 file upload and the documents around charging a stored method (4.8, decision “Charge authorizations”). */
export function fileRoutes(app: FastifyInstance, { store }: RouteDeps): void {
  app.post('/file', async (request, reply) => {
    const orgId = orgIdOf(request);
    const form = await readMultipart(request, MAX_FILE_BYTES);
    const file = form.files.get('file');
    if (!file) throw badRequest('invalid file: required');
    const fields = parseInput(UploadFileFields, form.fields);
    const view = store.write((tx) => fileView(uploadFile(tx, orgId, fields, file.filename, file.bytes)));
    request.log.info({ fileId: view.id, type: view.type }, 'file uploaded');
    return reply.code(201).send(view);
  });

  app.post<{ Params: { customerId: string } }>(
    '/customer/:customerId/requestChargeAuthorization',
    async (request) => {
      const input = parseInput(RequestChargeAuthorizationRequest, request.body);
      const orgId = orgIdOf(request);
      return store.write((tx) =>
        chargeAuthorizationView(requestChargeAuthorization(tx, orgId, request.params.customerId, input)),
      );
    },
  );

  app.get<{ Params: { chargeAuthorizationId: string } }>(
    '/chargeAuthorization/:chargeAuthorizationId',
    async (request) => {
      const orgId = orgIdOf(request);
      return store.read((r) =>
        chargeAuthorizationView(getChargeAuthorizationRow(r, orgId, request.params.chargeAuthorizationId)),
      );
    },
  );
}
