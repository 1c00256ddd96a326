import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/settings.js';
import type { IngressApp } from '../../src/ingress/ingress-app.js';
import { createIngress, createIngressApps } from '../../src/ingress/server.js';
import { codecServerOptions, embeddedUiCanDecode } from '../../src/runtime/codec-server-options.js';
import { payloadEncryption } from '../../src/temporal/data-converter.js';
import { EncryptionCodec, type PayloadKey } from '../../src/temporal/payload-codec.js';
import { recordingTemporalClient } from '../support/recording-temporal-client.js';
import { LogCapture } from '../support/stack/log-capture.js';

// booksync's codec server (Temporal's codec protocol) through the real ingress apps, configured from settings
// as `booksync ingress` and `booksync start` configure it: what the Web UI and the temporal CLI send (a CORS
// preflight, then a POST of base64 payloads) and what they get back. It decodes every history, so it is off
// unless a setting serves it, answers only its own bearer token (CODEC_SERVER_TOKEN) or is explicitly open,
// never because of the listener it is on (the review's finding: OPS_PORT with OPS_HOST 0.0.0.0 served anyone).

const apiKey = 'codec-test-command-key-0123456789';
const codecToken = 'codec-test-token-0123456789abcdef';
const uiOrigin = 'http://127.0.0.1:8233';
const key: PayloadKey = { id: 'k1', key: randomBytes(32) };
const keysSetting = `k1=${key.key.toString('base64')}`;
const encryption = payloadEncryption([key])!;
const apps: IngressApp[] = [];
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
});

/** The operations listener of `booksync ingress` with these settings (OPS_PORT set, as docker-compose.yml has). */
function operationsApp(env: Record<string, string>, logs?: LogCapture): IngressApp {
  const settings = loadSettings({ PAYLOAD_KEYS: keysSetting, OPS_HOST: '0.0.0.0', OPS_PORT: '3001', ...env });
  const { public: pub, operations } = createIngressApps({
    temporalClient: recordingTemporalClient().client,
    taskQueue: 'codec-test',
    webhookSecrets: ['whsec_codec_test'],
    commandApiKey: apiKey,
    ...(logs ? { logger: logs.logger('ingress') } : {}),
    ...codecServerOptions(
      settings,
      payloadEncryption([key], { required: settings.PAYLOAD_ENCRYPTION_REQUIRED }),
      null,
    ),
  });
  apps.push(pub, operations);
  return operations;
}

const b64 = (text: string) => Buffer.from(text).toString('base64');
const plain = { payloads: [{ metadata: { encoding: b64('json/plain') }, data: b64('{"customer":"Ada"}') }] };

/** `plain` sealed as booksync's workers seal it. */
async function sealed(codec: EncryptionCodec = encryption.codec) {
  const [p] = await codec.encode([
    {
      metadata: { encoding: new TextEncoder().encode('json/plain') },
      data: new TextEncoder().encode('{"customer":"Ada"}'),
    },
  ]);
  return {
    payloads: [
      {
        metadata: Object.fromEntries(
          Object.entries(p!.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v!).toString('base64')]),
        ),
        data: Buffer.from(p!.data!).toString('base64'),
      },
    ],
  };
}

const decode = (app: IngressApp, headers: Record<string, string> = {}, payload: object = plain) =>
  app.inject({ method: 'POST', url: '/codec/decode', payload, headers });

describe('who the codec server answers', () => {
  it('answers 401 to a decode without credentials, with OPS_PORT set and OPS_HOST 0.0.0.0', async () => {
    const app = operationsApp({ CODEC_SERVER_TOKEN: codecToken });
    const refused = await decode(app, {}, await sealed());
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'unauthorized' });
    expect(refused.body).not.toContain('Ada');
  });

  it('answers the plaintext to its bearer token, and 401 to a wrong one or the command API key', async () => {
    const app = operationsApp({ CODEC_SERVER_TOKEN: codecToken });
    const body = await sealed();
    const allowed = await decode(app, { authorization: `Bearer ${codecToken}` }, body);
    expect(allowed.statusCode).toBe(200);
    expect(allowed.json()).toEqual(plain);
    for (const authorization of [
      `Bearer ${codecToken}x`,
      `Bearer ${codecToken.slice(0, -1)}`,
      `Bearer ${apiKey}`,
      codecToken,
      `Basic ${b64(`user:${codecToken}`)}`,
    ]) {
      const refused = await decode(app, { authorization }, body);
      expect(refused.statusCode, authorization).toBe(401);
      expect(refused.body).not.toContain('Ada');
    }
  });

  it('is not served at all without a setting serving it, whatever the listener (OPS_HOST 0.0.0.0 or loopback)', async () => {
    for (const OPS_HOST of ['0.0.0.0', '127.0.0.1']) {
      const app = operationsApp({ OPS_HOST });
      const response = await decode(app, {}, await sealed());
      expect(response.statusCode, OPS_HOST).toBe(404);
      expect(response.body).not.toContain('Ada');
    }
  });

  it('on the one shared listener (no OPS_PORT) asks for its own token, not the command API key', async () => {
    const settings = loadSettings({
      PAYLOAD_KEYS: keysSetting,
      CODEC_SERVER_TOKEN: codecToken,
      INGRESS_HOST: '0.0.0.0',
    });
    const app = createIngress({
      temporalClient: recordingTemporalClient().client,
      taskQueue: 'codec-test',
      webhookSecrets: ['whsec_codec_test'],
      commandApiKey: apiKey,
      ...codecServerOptions(settings, encryption, null),
    });
    apps.push(app);
    expect((await decode(app)).statusCode).toBe(401);
    expect((await decode(app, { authorization: `Bearer ${apiKey}` })).statusCode).toBe(401);
    expect((await decode(app, { authorization: `Bearer ${codecToken}` })).statusCode).toBe(200);
  });

  it('is served on the operations listener when there is one, not on the public one', async () => {
    const settings = loadSettings({
      PAYLOAD_KEYS: keysSetting,
      CODEC_SERVER_TOKEN: codecToken,
      OPS_PORT: '3001',
    });
    const { public: pub, operations } = createIngressApps({
      temporalClient: recordingTemporalClient().client,
      taskQueue: 'codec-test',
      webhookSecrets: ['whsec_codec_test'],
      ...codecServerOptions(settings, encryption, null),
    });
    apps.push(pub, operations);
    const auth = { authorization: `Bearer ${codecToken}` };
    expect((await decode(pub, auth)).statusCode).toBe(404);
    const served = await decode(operations, auth);
    expect(served.statusCode).toBe(200);
    // No Web UI origin configured: no CORS header for anyone.
    const fromUi = await decode(operations, { ...auth, origin: uiOrigin });
    expect(fromUi.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('opens without a credential only when CODEC_SERVER_OPEN says so, and never together with a token', async () => {
    const open = operationsApp({ CODEC_SERVER_OPEN: 'true' });
    expect((await decode(open, {}, await sealed())).json()).toEqual(plain);
    expect(() =>
      codecServerOptions(
        loadSettings({
          PAYLOAD_KEYS: keysSetting,
          CODEC_SERVER_OPEN: 'true',
          CODEC_SERVER_TOKEN: codecToken,
        }),
        encryption,
        null,
      ),
    ).toThrow(/CODEC_SERVER_OPEN.*CODEC_SERVER_TOKEN/);
  });

  it('open on a loopback listener, answers only requests for a loopback host (a rebound name gets 403)', async () => {
    const app = operationsApp({ CODEC_SERVER_OPEN: 'true', OPS_HOST: '127.0.0.1' });
    const body = await sealed();
    for (const host of ['127.0.0.1:3001', 'localhost:3001', '[::1]:3001']) {
      expect((await decode(app, { host }, body)).statusCode, host).toBe(200);
    }
    const rebound = await decode(app, { host: 'attacker.example:3001' }, body);
    expect(rebound.statusCode).toBe(403);
    expect(rebound.body).not.toContain('Ada');
  });

  it('serves the embedded demo open on loopback (its Web UI has no credential to send), and not when the listener is not loopback', () => {
    const ui = 'http://127.0.0.1:8233';
    const demo = codecServerOptions(loadSettings({ PAYLOAD_KEYS: keysSetting }), encryption, ui);
    expect(demo.codec?.access).toEqual({ open: true, loopbackHostOnly: true });
    expect(embeddedUiCanDecode(demo)).toBe(true);
    expect(demo.codec?.corsOrigins).toEqual(['http://127.0.0.1:8233', 'http://localhost:8233']);
    const exposed = codecServerOptions(
      loadSettings({ PAYLOAD_KEYS: keysSetting, OPS_HOST: '0.0.0.0', OPS_PORT: '3001' }),
      encryption,
      ui,
    );
    expect(exposed.codec).toBeUndefined();
    // A production ingress (no embedded UI) with loopback listeners is not opened either.
    expect(
      codecServerOptions(loadSettings({ PAYLOAD_KEYS: keysSetting }), encryption, null).codec,
    ).toBeUndefined();
    // With a token, the embedded UI (which has no credential to send) is not pointed at it.
    const withToken = codecServerOptions(
      loadSettings({ PAYLOAD_KEYS: keysSetting, CODEC_SERVER_TOKEN: codecToken }),
      encryption,
      ui,
    );
    expect(withToken.codec?.access).toEqual({ token: codecToken });
    expect(embeddedUiCanDecode(withToken)).toBe(false);
    // Nothing to decode without keys.
    expect(
      codecServerOptions(loadSettings({ CODEC_SERVER_TOKEN: codecToken }), null, ui).codec,
    ).toBeUndefined();
  });
});

describe('what the codec server answers', () => {
  it('answers CORS to the configured Web UI origin only; a preflight from another origin gets no allow-origin', async () => {
    const app = operationsApp({ CODEC_SERVER_TOKEN: codecToken, CODEC_CORS_ORIGIN: uiOrigin });
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/codec/decode',
      headers: { origin: uiOrigin, 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(uiOrigin);
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('X-Namespace');
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('Authorization');

    const foreign = await app.inject({
      method: 'OPTIONS',
      url: '/codec/decode',
      headers: {
        origin: 'https://attacker.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    expect(foreign.headers['access-control-allow-headers']).toBeUndefined();
    expect(foreign.headers['access-control-allow-credentials']).toBeUndefined();

    const auth = { authorization: `Bearer ${codecToken}`, 'x-namespace': 'default' };
    const fromUi = await decode(app, { ...auth, origin: uiOrigin }, await sealed());
    expect(fromUi.statusCode).toBe(200);
    expect(fromUi.headers['access-control-allow-origin']).toBe(uiOrigin);
    const fromElsewhere = await decode(app, { ...auth, origin: 'https://attacker.example' }, await sealed());
    expect(fromElsewhere.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('serves /codec/encode only when CODEC_SERVER_ENCODE asks for it (404 otherwise, credentials or not)', async () => {
    const auth = { authorization: `Bearer ${codecToken}` };
    const without = operationsApp({ CODEC_SERVER_TOKEN: codecToken });
    for (const headers of [{}, auth]) {
      const response = await without.inject({
        method: 'POST',
        url: '/codec/encode',
        payload: plain,
        headers,
      });
      expect(response.statusCode).toBe(404);
    }
    const withEncode = operationsApp({ CODEC_SERVER_TOKEN: codecToken, CODEC_SERVER_ENCODE: 'true' });
    expect(
      (await withEncode.inject({ method: 'POST', url: '/codec/encode', payload: plain })).statusCode,
    ).toBe(401);
    const encoded = await withEncode.inject({
      method: 'POST',
      url: '/codec/encode',
      payload: plain,
      headers: auth,
    });
    expect(encoded.statusCode).toBe(200);
    const payload = encoded.json().payloads[0];
    expect(Buffer.from(payload.metadata.encoding, 'base64').toString()).toBe('binary/encrypted');
    expect(Buffer.from(payload.data, 'base64').toString()).not.toContain('Ada');
    expect((await decode(withEncode, auth, encoded.json())).json()).toEqual(plain);
  });

  it('answers 429 past a caller address’s budget, with Retry-After, and other addresses go on', async () => {
    const app = operationsApp({ CODEC_SERVER_TOKEN: codecToken, CODEC_DECODE_RATE_LIMIT: '5' });
    const auth = { authorization: `Bearer ${codecToken}` };
    const from = (remoteAddress: string, headers: Record<string, string> = auth) =>
      app.inject({ method: 'POST', url: '/codec/decode', payload: plain, headers, remoteAddress });
    for (let i = 0; i < 5; i += 1) expect((await from('10.0.0.7')).statusCode).toBe(200);
    const limited = await from('10.0.0.7');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: 'rate_limited' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Wrong tokens count too: a prober's guesses are bounded.
    for (let i = 0; i < 5; i += 1) expect((await from('10.0.0.8', {})).statusCode).toBe(401);
    expect((await from('10.0.0.8', {})).statusCode).toBe(429);
    expect((await from('10.0.0.9')).statusCode).toBe(200);
  });

  it('logs each decode with the caller address and payload count, never a payload', async () => {
    const logs = new LogCapture();
    const app = operationsApp({ CODEC_SERVER_TOKEN: codecToken }, logs);
    const body = await sealed();
    const twice = { payloads: [...body.payloads, ...body.payloads] };
    const response = await app.inject({
      method: 'POST',
      url: '/codec/decode',
      payload: twice,
      headers: { authorization: `Bearer ${codecToken}`, 'x-namespace': 'books' },
      remoteAddress: '10.1.2.3',
    });
    expect(response.statusCode).toBe(200);
    const audit = logs.lines
      .map((line) => JSON.parse(line.slice('ingress '.length)) as Record<string, unknown>)
      .filter((line) => line.audit === 'codec.decode');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ caller: '10.1.2.3', payloads: 2, namespace: 'books' });
    const text = logs.text();
    expect(text).not.toContain('Ada');
    expect(text).not.toContain('eyJjdXN0b21lciI6IkFkYSJ9');
    expect(text).not.toContain(body.payloads[0]!.data);
    expect(text).not.toContain(codecToken);
  });

  it('names a payload it cannot decode (a key PAYLOAD_KEYS lacks) and refuses what is not base64', async () => {
    const app = operationsApp({ CODEC_SERVER_TOKEN: codecToken });
    const auth = { authorization: `Bearer ${codecToken}` };
    const refused = await decode(
      app,
      auth,
      await sealed(new EncryptionCodec([{ id: 'gone', key: randomBytes(32) }])),
    );
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({
      code: 'codec_refused',
      error: expect.stringContaining('key gone'),
    });
    const bad = await decode(app, auth, { payloads: [{ data: '***' }] });
    expect(bad.statusCode).toBe(400);
  });

  it('shows a plain payload as it is even with PAYLOAD_ENCRYPTION_REQUIRED (display only; the workers refuse it)', async () => {
    const app = operationsApp({ CODEC_SERVER_TOKEN: codecToken, PAYLOAD_ENCRYPTION_REQUIRED: 'true' });
    const shown = await decode(app, { authorization: `Bearer ${codecToken}` });
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toEqual(plain);
  });
});
