// The command API's OpenAPI document as the running ingress serves it (GET /commands/openapi.json), for
// `npm run docs:command-api` and the test that keeps docs/command-api.openapi.json equal to it. Apart from
// openapi.ts, which the ingress's routes import: the document needs an ingress, the routes need the schemas.

/** The document as the running command API serves it, from an ingress that needs no Temporal for it. */
export async function commandApiOpenApiDocument(): Promise<string> {
  const { Client } = await import('@temporalio/client');
  const { createIngress } = await import('../ingress/server.js');
  const apiKey = 'openapi-document-only-key';
  const app = createIngress({
    temporalClient: new Client(),
    taskQueue: 'openapi',
    webhookSecrets: ['whsec_openapi_document_only'],
    commandApiKey: apiKey,
  });
  try {
    const response = await app.inject({
      method: 'GET',
      url: '/commands/openapi.json',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    if (response.statusCode !== 200)
      throw new Error(`/commands/openapi.json answered ${response.statusCode}`);
    return `${JSON.stringify(response.json(), null, 2)}\n`;
  } finally {
    await app.close();
  }
}
