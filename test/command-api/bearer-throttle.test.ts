import { afterAll, describe, expect, it } from 'vitest';
import { wrongKeyLimit } from '../../src/command-api/bearer-auth.js';
import type { IngressApp } from '../../src/ingress/ingress-app.js';
import { createIngress, createIngressApps } from '../../src/ingress/server.js';
import { recordingTemporalClient } from '../support/recording-temporal-client.js';

// Wrong bearer keys are counted per address: past wrongKeyLimit within the window, that address is answered
// 429 with Retry-After, on the command API and on the operators' routes that ask for the same key; another
// address with the right key is served as before.

const apiKey = 'bearer-throttle-key-0123456789';
const apps: IngressApp[] = [];
afterAll(() => Promise.all(apps.map((a) => a.close())));

const ingress = () => {
  const app = createIngress({
    temporalClient: recordingTemporalClient().client,
    taskQueue: 'bearer-throttle',
    webhookSecrets: ['whsec_bearer_throttle'],
    commandApiKey: apiKey,
  });
  apps.push(app);
  return app;
};

const get = (app: IngressApp, url: string, key: string, remoteAddress = '203.0.113.9') =>
  app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` }, remoteAddress });

describe('wrong command API keys', () => {
  it('60 from one address: 401 up to the limit, then 429 with Retry-After', async () => {
    const app = ingress();
    const answers = [];
    for (let i = 0; i < 60; i++)
      answers.push(await get(app, '/commands/openapi.json', `wrong-key-${i}-0123456789`));
    expect(wrongKeyLimit).toBeLessThan(60);
    expect(answers.slice(0, wrongKeyLimit).map((a) => a.statusCode)).toEqual(Array(wrongKeyLimit).fill(401));
    const throttled = answers.slice(wrongKeyLimit);
    expect(throttled.map((a) => a.statusCode)).toEqual(Array(60 - wrongKeyLimit).fill(429));
    for (const answer of throttled) {
      expect(answer.json()).toMatchObject({ code: 'too_many_wrong_keys' });
      const seconds = Number(answer.headers['retry-after']);
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThanOrEqual(15 * 60);
    }
    // That address is refused even with the right key, here and on /metrics (the same key, the same count).
    expect((await get(app, '/commands/openapi.json', apiKey)).statusCode).toBe(429);
    expect((await get(app, '/metrics', apiKey)).statusCode).toBe(429);
    // Another address is served.
    expect((await get(app, '/commands/openapi.json', apiKey, '198.51.100.3')).statusCode).toBe(200);
    expect((await get(app, '/metrics', apiKey, '198.51.100.3')).statusCode).toBe(200);
  });

  it('are counted alike when sent to the operators’ routes of a shared listener', async () => {
    const app = ingress();
    for (let i = 0; i < wrongKeyLimit; i++) {
      expect((await get(app, '/events/unrouted', `wrong-key-${i}-0123456789`)).statusCode).toBe(401);
    }
    expect((await get(app, '/commands/openapi.json', 'one-more-wrong-key-0123')).statusCode).toBe(429);
  });

  it('on the operations listener, are throttled on the command API', async () => {
    const split = createIngressApps({
      temporalClient: recordingTemporalClient().client,
      taskQueue: 'bearer-throttle',
      webhookSecrets: ['whsec_bearer_throttle'],
      commandApiKey: apiKey,
    });
    apps.push(split.public, split.operations);
    for (let i = 0; i < wrongKeyLimit; i++)
      await get(split.operations, '/commands/openapi.json', `wrong-${i}-0123456789`);
    expect((await get(split.operations, '/commands/openapi.json', 'wrong-again-0123456789')).statusCode).toBe(
      429,
    );
  });
});
