import type { FaultKind } from '@booksync/emulator/sandbox/faults';
import { SandboxClient } from '@booksync/emulator/sandbox-client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actualEntries, ExpectedBooks } from '../e2e/expected-books.js';
import { type E2EStack, startE2EStack } from '../support/e2e-stack.js';
import { startDevServer } from '../support/temporal.js';
import { waitFor } from '../support/wait-for.js';
import { hasAll, runPaymentScenario } from './scenario.js';

// The service misbehaves on 30% of the API calls booksync's activities make (emulator fault injection,
// POST /sandbox/faults): 500 with a plain-text body, 429, a request held 2 s then its socket closed, and a
// dropped answer. Activities retry (serviceCallRetry); the ledger's keys make every repeat a no-op. The
// books must equal what the scenario's amounts say, entry by entry.

const payments = Number(process.env.CHAOS_FAULT_PAYMENTS ?? 60);

describe('service faults on 30% of API calls', () => {
  let env: TestWorkflowEnvironment;
  let stack: E2EStack;
  const figures: Record<string, unknown> = {};

  beforeAll(async () => {
    env = await startDevServer();
    stack = await startE2EStack({ temporal: env, dispatcher: 'direct' });
  }, 300_000);
  afterAll(async () => {
    console.info('[service-faults figures]', JSON.stringify(figures));
    await stack?.stop();
    await env?.teardown();
  });

  const setFaults = async (body: unknown) => {
    const response = await fetch(`${stack.emulatorUrl}/sandbox/faults`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBeLessThan(300);
  };

  it('retries 500 (plain text), 429, timeouts and dropped connections and books every payment and refund exactly once', async () => {
    const started = Date.now();
    const injected: Record<FaultKind, number> = { '500': 0, '429': 0, timeout: 0, drop: 0 };
    let served = 0;
    const faults = stack.emulator.faults;
    const pick = faults.pick.bind(faults);
    faults.pick = (orgId: string) => {
      const kind = pick(orgId);
      served++;
      if (kind) injected[kind]++;
      return kind;
    };
    const faultConfig = { rate: 0.3, kinds: ['500', '429', 'timeout', 'drop'], timeoutMs: 2_000 };
    // The scenario's own API calls (create link, refund) are not retried by the test; a dropped refund would
    // be a second refund, so faults are off while the test itself calls the API and on the rest of the time.
    const expected = new ExpectedBooks();
    const sandbox = new SandboxClient({ baseUrl: stack.emulatorUrl, apiKey: stack.apiKey });
    const world = {
      sandbox,
      service: new Proxy(stack.service, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver);
          if (typeof value !== 'function') return value;
          return async (...args: unknown[]) => {
            await setFaults({ rate: 0, kinds: [] });
            try {
              return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            } finally {
              await setFaults(faultConfig);
            }
          };
        },
      }),
    };
    await setFaults(faultConfig);
    await runPaymentScenario(world, { count: payments, label: 'faults' }, expected);
    await waitFor(
      'every expected entry booked',
      async () => hasAll(expected)(await stack.books()),
      600_000,
      1_000,
    );
    await stack.waitForQuiet(300_000);
    await setFaults({ rate: 0, kinds: [] });
    figures.seconds = Math.round((Date.now() - started) / 1000);
    figures.requestsSeenByInjector = served;
    figures.injected = injected;

    // The weather really was bad: every kind of fault met booksync's calls.
    for (const kind of Object.keys(injected) as FaultKind[]) expect(injected[kind]).toBeGreaterThan(0);

    const books = await stack.books();
    expect(Object.keys(books.entries).length).toBe(expected.entries.size);
    expect(actualEntries(books)).toEqual(expected.entries);
    expect(books.balances).toEqual(expected.balances());
    expect(books.balanced).toBe(true);
    await stack.hledgerCheck(expected.balances());
  }, 900_000);
});
