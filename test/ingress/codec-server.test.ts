import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createIngress, createIngressApps, type IngressApp } from '../../src/ingress/server.js';
import { EncryptionCodec } from '../../src/temporal/payload-codec.js';
import { recordingTemporalClient } from '../support/recording-temporal-client.js';

// booksync's codec server (Temporal's codec protocol) through the real ingress app: what the Web UI sends
// from the browser (a CORS preflight, then a POST of base64 payloads) and what it gets back.

const apiKey = 'codec-test-command-key-0123456789';
const uiOrigin = 'http://127.0.0.1:8233';
const codec = new EncryptionCodec([{ id: 'k1', key: randomBytes(32) }]);
const apps: IngressApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
});

function shared(open: boolean): IngressApp {
  const app = createIngress({
    temporalClient: recordingTemporalClient().client,
    taskQueue: 'codec-test',
    webhookSecrets: ['whsec_codec_test'],
    commandApiKey: apiKey,
    codec: { codec, corsOrigin: uiOrigin, open },
  });
  apps.push(app);
  return app;
}

const b64 = (text: string) => Buffer.from(text).toString('base64');
const plain = { payloads: [{ metadata: { encoding: b64('json/plain') }, data: b64('{"customer":"Ada"}') }] };

describe('the codec server', () => {
  it('encodes and decodes the way the Web UI asks, with the CORS it needs', async () => {
    const app = shared(true);
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/codec/decode',
      headers: { origin: uiOrigin, 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(uiOrigin);
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('X-Namespace');
    const encoded = await app.inject({
      method: 'POST',
      url: '/codec/encode',
      payload: plain,
      headers: { origin: uiOrigin },
    });
    expect(encoded.statusCode).toBe(200);
    const sealed = encoded.json();
    expect(Buffer.from(sealed.payloads[0].metadata.encoding, 'base64').toString()).toBe('binary/encrypted');
    expect(Buffer.from(sealed.payloads[0].data, 'base64').toString()).not.toContain('Ada');
    const decoded = await app.inject({
      method: 'POST',
      url: '/codec/decode',
      payload: sealed,
      headers: { 'x-namespace': 'default', origin: uiOrigin },
    });
    expect(decoded.statusCode).toBe(200);
    expect(decoded.headers['access-control-allow-origin']).toBe(uiOrigin);
    expect(decoded.json()).toEqual(plain);
  });

  it('on a shared listener that is not loopback-only, asks for the command API key (not of the preflight)', async () => {
    const app = shared(false);
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/codec/decode',
      headers: { origin: uiOrigin },
    });
    expect(preflight.statusCode).toBe(204);
    const refused = await app.inject({ method: 'POST', url: '/codec/decode', payload: plain });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'unauthorized' });
    const allowed = await app.inject({
      method: 'POST',
      url: '/codec/decode',
      payload: plain,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(allowed.statusCode).toBe(200);
  });

  it('names a payload it cannot decode (a key PAYLOAD_KEYS lacks) and refuses what is not base64', async () => {
    const app = shared(true);
    const other = await new EncryptionCodec([{ id: 'gone', key: randomBytes(32) }]).encode([
      { metadata: { encoding: new TextEncoder().encode('json/plain') }, data: new TextEncoder().encode('1') },
    ]);
    const payload = {
      payloads: other.map((p) => ({
        metadata: Object.fromEntries(
          Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v!).toString('base64')]),
        ),
        data: Buffer.from(p.data!).toString('base64'),
      })),
    };
    const refused = await app.inject({ method: 'POST', url: '/codec/decode', payload });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({
      code: 'codec_refused',
      error: expect.stringContaining('key gone'),
    });
    const bad = await app.inject({
      method: 'POST',
      url: '/codec/decode',
      payload: { payloads: [{ data: '***' }] },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('is served on the operations listener when there is one, not on the public one', async () => {
    const { public: pub, operations } = createIngressApps({
      temporalClient: recordingTemporalClient().client,
      taskQueue: 'codec-test',
      webhookSecrets: ['whsec_codec_test'],
      codec: { codec, corsOrigin: null, open: true },
    });
    apps.push(pub, operations);
    expect((await pub.inject({ method: 'POST', url: '/codec/decode', payload: plain })).statusCode).toBe(404);
    const served = await operations.inject({ method: 'POST', url: '/codec/decode', payload: plain });
    expect(served.statusCode).toBe(200);
    expect(served.headers['access-control-allow-origin']).toBeUndefined();
  });
});
