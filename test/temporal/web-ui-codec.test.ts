import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/settings.js';
import type { PaymentSyncResult } from '../../src/flows/payment/activities-contract.js';
import { codecRoutes } from '../../src/ingress/routes/codec.js';
import { silentLogger } from '../../src/logging/logger.js';
import { codecServerOptions, embeddedUiCanDecode } from '../../src/runtime/codec-server-options.js';
import { type RunningDevServer, startDevServer } from '../../src/runtime/temporal/dev-server.js';
import { booksyncWorkflowWorkerOptions } from '../../src/runtime/worker/booksync-worker.js';
import { cachedWorkflowBundle } from '../../src/runtime/worker/workflow-bundle.js';
import { type PayloadEncryption, payloadEncryption } from '../../src/temporal/data-converter.js';
import { freePort } from '../support/free-port.js';
import { chromiumAvailable, launchHeadlessChromium } from '../support/headless-chromium.js';
import { installQuietRuntime } from '../support/temporal.js';

// The Temporal Web UI with encrypted payloads, as a person sees it in a browser: the
// dev server started the way `booksync start` starts it with PAYLOAD_KEYS (`--ui-codec-endpoint` naming
// booksync's codec server, src/runtime/booksync-stack.ts), a payment workflow run by an encrypting client and
// worker, its page loaded in headless Chromium. While the codec server is not running, the rendered page shows
// the payloads as ciphertext (`binary/encrypted`) and neither the customer's name (the sync result) nor the
// payment id (the input); once booksync's codec routes answer at that endpoint, configured as `booksync start`
// configures them for its own dev server (open on loopback to loopback hosts, CORS for the UI's origin only:
// the UI has no sign-in, so no credential to send), the same page shows both.

const customer = `Ada Lovelace ${randomBytes(3).toString('hex')}`;
const paymentId = `pay_webui_${randomBytes(4).toString('hex')}`;
// Not the id booksync gives it (payment-{paymentId}): the page shows the workflow id in any case.
const workflowId = `payment-webui-${randomBytes(4).toString('hex')}`;
const artifacts = path.resolve('test', '.artifacts');

let folder: string;
let devServer: RunningDevServer;
let encryption: PayloadEncryption;
let codecPort: number;
let codecServer: FastifyInstance | null = null;

beforeAll(async () => {
  installQuietRuntime();
  folder = mkdtempSync(path.join(tmpdir(), 'booksync-webui-'));
  encryption = payloadEncryption([{ id: 'k1', key: randomBytes(32) }])!;
  codecPort = await freePort();
  devServer = await startDevServer({
    dbFile: path.join(folder, 'temporal.db'),
    port: await freePort(),
    uiPort: await freePort(),
    namespace: 'default',
    logger: silentLogger,
    uiCodecEndpoint: `http://127.0.0.1:${codecPort}/codec`,
  });

  const { codePath } = await cachedWorkflowBundle({
    failureConverterPath: encryption.dataConverter.failureConverterPath,
  });
  const nativeConnection = await NativeConnection.connect({ address: devServer.address });
  const connection = await Connection.connect({ address: devServer.address });
  try {
    const taskQueue = `webui-${randomBytes(3).toString('hex')}`;
    const worker = await Worker.create({
      ...(await booksyncWorkflowWorkerOptions({
        connection: nativeConnection,
        namespace: 'default',
        taskQueue,
        logger: silentLogger,
        workflowBundle: { codePath },
      })),
      dataConverter: encryption.dataConverter,
      activities: {
        async syncPayment(): Promise<PaymentSyncResult> {
          return {
            paymentId,
            status: 'SUCCEEDED',
            methodType: 'CARD',
            paymentLinkId: null,
            // Booksync's histories carry ids, not names; this stands for the business data a target's
            // refusal or a memo would put there.
            customerId: customer,
            amountInCents: 4_200,
            madeAt: new Date().toISOString(),
            posted: [`payment:${paymentId}`],
            reversed: [],
          };
        },
      },
    });
    const client = new Client({ connection, namespace: 'default', dataConverter: encryption.dataConverter });
    await worker.runUntil(
      client.workflow.execute('payment', { workflowId, taskQueue, args: [{ paymentId, syncOnStart: true }] }),
    );
  } finally {
    await connection.close();
    await nativeConnection.close();
  }
}, 240_000);

afterAll(async () => {
  await codecServer?.close();
  await devServer?.stop();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/**
 * Booksync's codec routes alone, at the endpoint the UI was started with, with the options `booksync start`
 * gives them for its embedded dev server's UI (a demo's default settings: the ingress on loopback).
 */
async function startCodecServer(): Promise<FastifyInstance> {
  const settings = loadSettings({ INGRESS_PORT: String(codecPort) });
  const options = codecServerOptions(settings, encryption, devServer.uiUrl);
  expect(embeddedUiCanDecode(options)).toBe(true);
  expect(options.codec?.access).toEqual({ open: true, loopbackHostOnly: true });
  const app = Fastify();
  await app.register(codecRoutes, options.codec!);
  await app.listen({ host: '127.0.0.1', port: codecPort });
  return app;
}

/** The workflow's page once `ready` is in its rendered text (both payload views render after the UI's decode
 * round, answered or failed); the page's visible text. */
async function workflowPageText(page: Page, ready: string, shot: string): Promise<string> {
  await page.goto(`${devServer.uiUrl}/namespaces/default/workflows/${workflowId}`);
  await page.locator('body', { hasText: ready }).waitFor({ timeout: 60_000 });
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, shot), fullPage: true });
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text a person reads, not hidden nodes' text
  return page.locator('body').innerText();
}

describe.runIf(chromiumAvailable)(
  'a payment workflow in the Temporal Web UI, encrypted',
  { timeout: 240_000 },
  () => {
    it('shows ciphertext without the codec server, and the decoded input and result with it', async () => {
      const browser = await launchHeadlessChromium([
        '--disable-quic',
        '--disable-component-update',
        '--disable-sync',
      ]);
      try {
        const page = await browser.newPage({ viewport: { width: 1400, height: 1600 } });
        // The payloads' metadata as the UI shows it undecoded: `encoding` is base64 of `binary/encrypted`.
        const encrypted = Buffer.from('binary/encrypted').toString('base64');
        const without = await workflowPageText(page, encrypted, 'temporal-ui-encrypted.png');
        expect(without).toContain('Codec Server could not connect');
        expect(without).not.toContain(customer);
        expect(without).not.toContain(paymentId);

        codecServer = await startCodecServer();
        const withCodec = await workflowPageText(page, customer, 'temporal-ui-decoded.png');
        expect(withCodec).toContain(paymentId);
        expect(withCodec).toContain(customer);
        expect(withCodec).not.toContain(encrypted);
        expect(withCodec).not.toContain('Codec Server could not connect');
      } finally {
        await browser.close();
      }
    });
  },
);
