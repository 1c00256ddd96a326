import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/settings.js';
import { createIngress } from '../../src/ingress/server.js';
import { ingressSettings } from '../../src/runtime/ingress-settings.js';
import { recordingTemporalClient } from '../support/recording-temporal-client.js';

// TRUST_PROXY: unset, a request's address is its connection's whatever X-Forwarded-For says; set to the
// proxies (addresses, CIDRs) or a number of hops, the address the trusted proxy forwarded.

/** The address the ingress sees for a request from `remoteAddress` carrying `forwarded`. */
async function addressSeen(env: Record<string, string>, remoteAddress: string, forwarded: string) {
  const { trustProxy } = ingressSettings(loadSettings(env));
  const app = createIngress({
    temporalClient: recordingTemporalClient().client,
    taskQueue: 'trust-proxy',
    webhookSecrets: ['whsec_trust_proxy'],
    ...(trustProxy ? { trustProxy } : {}),
  });
  app.get('/address', async (request) => request.ip);
  try {
    return (await app.inject({ url: '/address', remoteAddress, headers: { 'x-forwarded-for': forwarded } }))
      .body;
  } finally {
    await app.close();
  }
}

describe('TRUST_PROXY', () => {
  it('unset, ignores X-Forwarded-For', async () => {
    expect(await addressSeen({}, '10.0.0.5', '192.0.2.7')).toBe('10.0.0.5');
  });

  it('believes the proxies it names (addresses or CIDRs), and no one else', async () => {
    expect(await addressSeen({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }, '10.0.0.5', '192.0.2.7')).toBe(
      '192.0.2.7',
    );
    expect(await addressSeen({ TRUST_PROXY: '10.0.0.0/8' }, '198.51.100.1', '192.0.2.7')).toBe(
      '198.51.100.1',
    );
  });

  it('as a number of hops, takes that many from the connection', async () => {
    expect(await addressSeen({ TRUST_PROXY: '1' }, '10.0.0.5', '203.0.113.9, 192.0.2.7')).toBe('192.0.2.7');
  });

  it('refuses what is neither', () => {
    expect(() => loadSettings({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY.*got true/);
    expect(() => loadSettings({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(/TRUST_PROXY/);
  });
});
