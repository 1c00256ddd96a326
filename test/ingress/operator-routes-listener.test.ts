// test tier: integration
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/settings.js';
import { type RunningIngress, startIngress } from '../../src/ingress/main.js';
import { silentLogger } from '../../src/logging/logger.js';
import { ingressSettings } from '../../src/runtime/ingress-settings.js';

// The console and the command API never share the internet-facing webhook listener by accident: a listener
// that is not loopback, without OPS_PORT, refuses them unless OPERATOR_ROUTES_ON_WEBHOOK_LISTENER says so.

const connection = Connection.lazy({ address: '127.0.0.1:1' });
const client = new Client({ connection });
const running: RunningIngress[] = [];

afterAll(async () => {
  for (const ingress of running) await ingress.close();
  await connection.close();
});

function start(host: string, extra: Record<string, unknown> = {}) {
  return startIngress({
    host,
    port: 0,
    temporal: { client },
    taskQueue: 'operator-routes',
    webhookSecrets: ['whsec_operator_routes_listener'],
    commandApiKey: 'command-key-for-operator-routes',
    logger: silentLogger,
    ...extra,
  }).then((ingress) => {
    running.push(ingress);
    return ingress;
  });
}

describe('the operators’ routes on the webhook listener', () => {
  it('refuses a shared listener that is not loopback, in one line naming the fix', async () => {
    const failure = start('0.0.0.0');
    await expect(failure).rejects.toThrow(/OPS_PORT/);
    await expect(failure).rejects.toThrow(/OPERATOR_ROUTES_ON_WEBHOOK_LISTENER=true/);
    await expect(failure).rejects.toThrow(/^[^\n]+$/);
  });

  it('serves them there when the setting allows it on purpose, or on loopback, or beside OPS_PORT', async () => {
    const settings = loadSettings({
      INGRESS_HOST: '0.0.0.0',
      OPERATOR_ROUTES_ON_WEBHOOK_LISTENER: 'true',
    });
    const allowed = await start('0.0.0.0', {
      operatorRoutesOnWebhookListener: ingressSettings(settings).operatorRoutesOnWebhookListener,
    });
    const answer = await fetch(
      `${allowed.address.replace('0.0.0.0', '127.0.0.1')}/commands/checkDeposits/chk_1/apply`,
      {
        method: 'POST',
      },
    );
    expect(answer.status).toBe(401);
    await expect(start('127.0.0.1')).resolves.toBeDefined();
    await expect(start('0.0.0.0', { operations: { host: '127.0.0.1', port: 0 } })).resolves.toBeDefined();
  });

  it('leaves a webhook-only listener alone', async () => {
    await expect(start('0.0.0.0', { commandApiKey: undefined })).resolves.toBeDefined();
  });
});
