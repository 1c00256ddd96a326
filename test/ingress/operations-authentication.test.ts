import { afterAll, describe, expect, it } from 'vitest';
import type { IngressApp } from '../../src/ingress/ingress-app.js';
import { createIngress, createIngressApps } from '../../src/ingress/server.js';
import { recordingTemporalClient } from '../support/recording-temporal-client.js';
import { envelope, secretA, signed } from './harness.js';

// Without OPS_PORT one listener serves everything, and that listener is the one the payment
// service (so the internet) reaches: /metrics and /events/unrouted there answer only with the command API's
// bearer key, and not at all without one. On their own listener (OPS_PORT, private) they stay open to
// Prometheus. Health stays open everywhere (load balancers), the webhook route keeps its signatures.

const apiKey = 'operations-auth-key-0123456789';
const apps: IngressApp[] = [];
afterAll(() => Promise.all(apps.map((a) => a.close())));

function shared(commandApiKey?: string): IngressApp {
  const app = createIngress({
    temporalClient: recordingTemporalClient().client,
    taskQueue: 'operations-auth',
    webhookSecrets: [secretA],
    ...(commandApiKey ? { commandApiKey } : {}),
  });
  apps.push(app);
  return app;
}

const get = (app: IngressApp, url: string, authorization?: string) =>
  app.inject({ method: 'GET', url, headers: authorization ? { authorization } : {} });

describe('operations endpoints on the shared (public) listener', () => {
  it('answer 401 without the command API key or with a wrong one, and serve it with the key', async () => {
    const app = shared(apiKey);
    for (const url of ['/metrics', '/events/unrouted']) {
      const anonymous = await get(app, url);
      expect(anonymous.statusCode, url).toBe(401);
      expect(anonymous.json(), url).toMatchObject({ code: 'unauthorized' });
      expect((await get(app, url, 'Bearer not-the-key-0123456789')).statusCode, url).toBe(401);
      expect((await get(app, url, `Basic ${apiKey}`)).statusCode, url).toBe(401);
      expect((await get(app, url, `Bearer ${apiKey}`)).statusCode, url).toBe(200);
    }
    expect((await get(app, '/metrics', `Bearer ${apiKey}`)).body).toContain(
      'booksync_ingress_deliveries_received_total',
    );
    expect((await get(app, '/healthz')).statusCode).toBe(200);
  });

  it('are not served to anyone without a command API key, and say how to reach them', async () => {
    const app = shared();
    for (const url of ['/metrics', '/events/unrouted']) {
      const answer = await get(app, url);
      expect(answer.statusCode, url).toBe(401);
      expect(answer.json().error, url).toMatch(/OPS_PORT|COMMAND_API_KEY/);
      expect((await get(app, url, 'Bearer anything-at-all-0123')).statusCode, url).toBe(401);
    }
  });

  it('leave the webhook route and health as they were', async () => {
    const app = shared(apiKey);
    const body = JSON.stringify(envelope('invoice.created', 'payment'));
    const delivered = await app.inject({
      method: 'POST',
      url: '/webhooks/service',
      headers: { 'content-type': 'application/json', 'service-signature': signed(secretA, body) },
      payload: body,
    });
    expect(delivered.statusCode).toBe(200);
    expect((await get(app, '/events/unrouted', `Bearer ${apiKey}`)).json().events).toHaveLength(1);
  });
});

describe('operations endpoints on their own listener (OPS_PORT)', () => {
  it('stay open to Prometheus there, and are absent from the public listener', async () => {
    const split = createIngressApps({
      temporalClient: recordingTemporalClient().client,
      taskQueue: 'operations-auth',
      webhookSecrets: [secretA],
      commandApiKey: apiKey,
    });
    apps.push(split.public, split.operations);
    expect((await get(split.operations, '/metrics')).statusCode).toBe(200);
    expect((await get(split.operations, '/events/unrouted')).statusCode).toBe(200);
    expect((await get(split.public, '/metrics', `Bearer ${apiKey}`)).statusCode).toBe(404);
  });
});
