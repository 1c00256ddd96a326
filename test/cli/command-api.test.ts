import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { newDeposit, newLink } from '@booksync/emulator/harness';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandIdFrom } from '../../src/command-api/idempotency.js';
import { checkDepositWorkflowId } from '../../src/flows/check-deposit/contract.js';
import {
  linkCommandUpdate,
  paymentLinkViewQuery,
  paymentLinkWorkflowId,
} from '../../src/flows/payment-link/contract.js';
import { createIngress } from '../../src/ingress/server.js';
import { secretA } from '../ingress/harness.js';
import { type CommandApiStack, startCommandApiStack } from '../support/command-api-stack.js';
import { checkWithHledger } from '../support/hledger.js';
import { balancesByRole, type SyncWorld } from '../support/sync-world.js';
import { fixturesDir } from '../support/temporal.js';
import { eventually } from '../support/wait-for.js';

// The command API end to end: real HTTP into the ingress, signalWithStart on a real Temporal dev server, a
// worker with the real activities, the emulator over HTTP and a real ledger file.

const apiKey = 'command-api-test-key-0123456789';
let env: TestWorkflowEnvironment;
let world: SyncWorld;
let stack: CommandApiStack;
let baseUrl: string;

beforeAll(async () => {
  stack = await startCommandApiStack({
    taskQueuePrefix: 'commands',
    apiKey,
    returnedCheckFeeCents: 1500,
    answerWithinMs: 3_000,
  });
  ({ env, world, baseUrl } = stack);
});
afterAll(async () => {
  await stack?.close();
});

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies asserted on
  body: any;
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { authorization: `Bearer ${apiKey}` },
): Promise<Answer> {
  // Every POST carries a fresh Idempotency-Key unless the test sends its own (or tests its absence).
  const keyed =
    method === 'POST' && !('idempotency-key' in headers) && !('no-idempotency-key' in headers)
      ? { ...headers, 'idempotency-key': randomUUID() }
      : Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'no-idempotency-key'));
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? keyed : { ...keyed, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

async function workflowExists(workflowId: string): Promise<boolean> {
  try {
    await env.client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

describe('command API authentication', () => {
  it('answers 401 without a key, with a wrong key, or another scheme', async () => {
    const link = await newLink(world.emulator.api, 1000);
    const path = `/commands/paymentLinks/${link.id}/externalPayments`;
    const body = { amountCents: 100, paidAt: '2026-03-01' };
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Bearer wrong-key-wrong-key-wrong' },
      { authorization: `Basic ${apiKey}` },
    ]) {
      const answer = await call('POST', path, body, headers);
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ error: expect.any(String), code: 'unauthorized' });
    }
    expect((await call('GET', `/commands/paymentLinks/${link.id}`, undefined, {})).status).toBe(401);
    expect(await workflowExists(paymentLinkWorkflowId(link.id))).toBe(false);
  });

  it('is not served when no key is configured', async () => {
    const bare = createIngress({
      temporalClient: env.client,
      taskQueue: 'unused',
      webhookSecrets: [secretA],
    });
    const answer = await bare.inject({
      method: 'GET',
      url: '/commands/paymentLinks/pl_1',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(answer.statusCode).toBe(404);
    await bare.close();
  });
});

describe('command API validation: a 4xx changes nothing', () => {
  it.each([
    ['a negative amount', { amountCents: -5, paidAt: '2026-03-01' }],
    ['a fractional amount', { amountCents: 10.5, paidAt: '2026-03-01' }],
    ['a zero amount', { amountCents: 0, paidAt: '2026-03-01' }],
    ['an amount as text', { amountCents: '100', paidAt: '2026-03-01' }],
    ['no paidAt', { amountCents: 100 }],
    ['a paidAt that is no date', { amountCents: 100, paidAt: '2026-02-30' }],
    [
      'an over-long reference',
      { amountCents: 100, paidAt: '2026-03-01', externalReferenceId: 'r'.repeat(256) },
    ],
    ['an unknown field', { amountCents: 100, paidAt: '2026-03-01', note: 'x' }],
  ])('external payment with %s: 400', async (_what, body) => {
    const link = await newLink(world.emulator.api, 1000);
    const answer = await call('POST', `/commands/paymentLinks/${link.id}/externalPayments`, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: expect.any(String), code: 'invalid_request' });
    expect(await workflowExists(paymentLinkWorkflowId(link.id))).toBe(false);
  });

  it('400 for bad debit memos and deposit applications; nothing is signalled', async () => {
    const link = await newLink(world.emulator.api, 1000);
    const deposit = await newDeposit(world.emulator.api, 1000);
    const bad: [string, unknown][] = [
      [`/commands/paymentLinks/${link.id}/debitMemos`, { amountCents: 100 }],
      [`/commands/paymentLinks/${link.id}/debitMemos`, { amountCents: 1.5, description: 'fee' }],
      [`/commands/paymentLinks/${link.id}/debitMemos`, { amountCents: 100, description: 'x'.repeat(501) }],
      [`/commands/checkDeposits/${deposit.id}/apply`, { amountCents: 100 }],
      [`/commands/checkDeposits/${deposit.id}/apply`, { paymentLinkId: link.id, amountCents: -1 }],
      [`/commands/checkDeposits/${deposit.id}/apply`, { paymentLinkId: 'has space', amountCents: 1 }],
      [`/commands/paymentLinks/${link.id}/externalPayments/ep_1/void`, { extra: true }],
    ];
    for (const [path, body] of bad) {
      const answer = await call('POST', path, body);
      expect([path, answer.status]).toEqual([path, 400]);
    }
    const tooLongKey = await call(
      'POST',
      `/commands/paymentLinks/${link.id}/sync`,
      {},
      {
        authorization: `Bearer ${apiKey}`,
        'idempotency-key': 'k'.repeat(256),
      },
    );
    expect(tooLongKey.status).toBe(400);
    expect(await workflowExists(paymentLinkWorkflowId(link.id))).toBe(false);
    expect(await workflowExists(checkDepositWorkflowId(deposit.id))).toBe(false);
    const fetched = (await world.emulator.api('GET', `/paymentLink/${link.id}`)).body;
    expect([fetched.externalPayments, fetched.debitMemos, fetched.completedAmountCents]).toEqual([[], [], 0]);
  });

  it('404 for the view of a link no workflow mirrors', async () => {
    const answer = await call('GET', '/commands/paymentLinks/pl_never_seen');
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ code: 'not_found' });
  });
});

describe('command API effects', () => {
  it('records an external payment and a debit memo, answering with the record and the link; a retried request answers the same and is done once', async () => {
    const link = await newLink(world.emulator.api, 5000);
    const before = await balancesByRole(world.ledger);
    const key = { authorization: `Bearer ${apiKey}`, 'idempotency-key': 'client-retry-1' };
    const first = await call(
      'POST',
      `/commands/paymentLinks/${link.id}/externalPayments`,
      { amountCents: 1200, paidAt: '2026-03-02' },
      key,
    );
    expect(first).toMatchObject({
      status: 201,
      body: {
        workflowId: paymentLinkWorkflowId(link.id),
        commandId: commandIdFrom('client-retry-1'),
        result: { kind: 'recordExternalPayment', status: 'DONE' },
        link: { requestedAmountCents: 5000, completedAmountCents: 1200, remainderCents: 3800 },
      },
    });
    expect(first.body.result.recordId).toEqual(expect.any(String));
    const again = await call(
      'POST',
      `/commands/paymentLinks/${link.id}/externalPayments`,
      { amountCents: 1200, paidAt: '2026-03-02' },
      key,
    );
    expect(again).toEqual(first);
    const memo = await call('POST', `/commands/paymentLinks/${link.id}/debitMemos`, {
      amountCents: 300,
      description: 'Late fee',
    });
    expect(memo).toMatchObject({
      status: 201,
      body: { result: { kind: 'recordDebitMemo', status: 'DONE' }, link: { requestedAmountCents: 5300 } },
    });
    expect(await call('GET', `/commands/paymentLinks/${link.id}/commands/${memo.body.commandId}`)).toEqual(
      memo,
    );

    const view = await eventually(async () => {
      const answer = await call('GET', `/commands/paymentLinks/${link.id}`);
      return answer.status === 200 && answer.body.commands.length === 2 && answer.body.debitMemos.length === 1
        ? answer.body
        : undefined;
    });
    expect(view).toMatchObject({
      serviceStatus: 'ACTIVE',
      completedAmountCents: 1200,
      requestedAmountCents: 5300,
    });
    const fetched = (await world.emulator.api('GET', `/paymentLink/${link.id}`)).body;
    expect(fetched.externalPayments).toHaveLength(1);
    const now = await balancesByRole(world.ledger);
    expect(now.ChecksToDeposit - before.ChecksToDeposit).toBe(1200);
    // The invoice (the link's own 50.00) and the memo owed, less the 12.00 received.
    expect(now.AccountsReceivable - before.AccountsReceivable).toBe(4_100);
    expect(now.Revenue - before.Revenue).toBe(-5_000);
    expect(now.FeeIncome - before.FeeIncome).toBe(-300);

    // Void by command, then the link is back to what it was: its invoice owed in full.
    const paymentId = fetched.externalPayments[0].id as string;
    expect(
      (await call('POST', `/commands/paymentLinks/${link.id}/externalPayments/${paymentId}/void`)).status,
    ).toBe(200);
    expect(
      (await call('POST', `/commands/paymentLinks/${link.id}/debitMemos/${view.debitMemos[0].id}/void`))
        .status,
    ).toBe(200);
    await eventually(async () => {
      const answer = await call('GET', `/commands/paymentLinks/${link.id}`);
      return answer.body.externalPayments.length === 0 && answer.body.debitMemos.length === 0
        ? true
        : undefined;
    });
    const after = await balancesByRole(world.ledger);
    expect([
      after.ChecksToDeposit - before.ChecksToDeposit,
      after.AccountsReceivable - before.AccountsReceivable,
      after.FeeIncome - before.FeeIncome,
    ]).toEqual([0, 5_000, 0]);
    expect((await call('POST', `/commands/paymentLinks/${link.id}/sync`, { reason: 'manual' })).status).toBe(
      202,
    );
    await checkWithHledger(world.ledger);
  });

  it('refuses a money command without an Idempotency-Key (400), and a key reused for another request (422), changing nothing', async () => {
    const link = await newLink(world.emulator.api, 3000);
    const route = `/commands/paymentLinks/${link.id}/externalPayments`;
    const noKey = await call(
      'POST',
      route,
      { amountCents: 500, paidAt: '2026-03-05' },
      {
        authorization: `Bearer ${apiKey}`,
        'no-idempotency-key': '1',
      },
    );
    expect(noKey).toMatchObject({ status: 400, body: { code: 'idempotency_key_required' } });
    expect(await workflowExists(paymentLinkWorkflowId(link.id))).toBe(false);
    const headers = { authorization: `Bearer ${apiKey}`, 'idempotency-key': 'reused-key-1' };
    expect((await call('POST', route, { amountCents: 500, paidAt: '2026-03-05' }, headers)).status).toBe(201);
    const otherAmount = await call('POST', route, { amountCents: 900, paidAt: '2026-03-05' }, headers);
    expect(otherAmount).toMatchObject({ status: 422, body: { code: 'idempotency_key_reused' } });
    const otherLink = await newLink(world.emulator.api, 3000);
    const elsewhere = await call(
      'POST',
      `/commands/paymentLinks/${otherLink.id}/externalPayments`,
      { amountCents: 500, paidAt: '2026-03-05' },
      headers,
    );
    expect(elsewhere.status).toBe(422);
    expect(await workflowExists(paymentLinkWorkflowId(otherLink.id))).toBe(false);
    const fetched = (await world.emulator.api('GET', `/paymentLink/${link.id}`)).body;
    expect(fetched.externalPayments.map((p: { amountCents: number }) => p.amountCents)).toEqual([500]);
  });

  it('a command whose first try answers 503 (no worker took it in time) and is retried with the same key records once, in the service and the books', async () => {
    const link = await newLink(world.emulator.api, 6000);
    const route = `/commands/paymentLinks/${link.id}/externalPayments`;
    const body = { amountCents: 700, paidAt: '2026-03-06' };
    const headers = { authorization: `Bearer ${apiKey}`, 'idempotency-key': 'retry-after-503' };
    await stack.stopWorker();
    let first: Answer;
    try {
      first = await call('POST', route, body, headers);
    } finally {
      await stack.startWorker();
    }
    expect(first).toMatchObject({ status: 503, body: { code: 'temporal_unavailable' } });
    const retried = await call('POST', route, body, headers);
    expect(retried).toMatchObject({ status: 201, body: { result: { status: 'DONE' } } });
    const recordId = retried.body.result.recordId as string;
    const fetched = (await world.emulator.api('GET', `/paymentLink/${link.id}`)).body;
    expect(fetched.externalPayments.map((p: { id: string }) => p.id)).toEqual([recordId]);
    const booked = await eventually(async () => {
      const keys = (await world.ledger.allEntries())
        .map((e) => e.key)
        .filter((k) => k.startsWith('external-payment:') && k.includes(recordId));
      return keys.length > 0 ? keys : undefined;
    });
    expect(booked).toEqual([`external-payment:${recordId}`]);
  });

  it('answers 202 with where to ask while the service call is retried, then the outcome there and for the same key', async () => {
    const link = await newLink(world.emulator.api, 4000);
    const deposit = await newDeposit(world.emulator.api, 1500);
    const faults = (body: unknown) => world.emulator.api('POST', '/sandbox/faults', body);
    expect((await faults({ rate: 1, kinds: ['500'] })).status).toBeLessThan(300);
    const headers = { authorization: `Bearer ${apiKey}`, 'idempotency-key': 'slow-apply-1' };
    let first: Answer;
    try {
      first = await call(
        'POST',
        `/commands/checkDeposits/${deposit.id}/apply`,
        { paymentLinkId: link.id },
        headers,
      );
    } finally {
      await faults({ rate: 0, kinds: [] });
    }
    expect(first).toMatchObject({
      status: 202,
      body: { status: 'PENDING', commandId: commandIdFrom('slow-apply-1') },
    });
    const outcome = await eventually(async () => {
      const answer = await call('GET', first.body.outcome);
      return answer.status === 201 ? answer : undefined;
    }, 'the outcome');
    expect(outcome.body.application).toMatchObject({
      status: 'APPLIED',
      amountCents: 1500,
      linkRemainderCents: 2500,
    });
    // The same key again: the outcome, not a second application.
    const again = await call(
      'POST',
      `/commands/checkDeposits/${deposit.id}/apply`,
      { paymentLinkId: link.id },
      headers,
    );
    expect(again).toEqual(outcome);
    const fetched = (await world.emulator.api('GET', `/serviceBanking/checkDeposits/${deposit.id}`)).body;
    expect(fetched.applications).toHaveLength(1);
    await env.client.workflow.getHandle(checkDepositWorkflowId(deposit.id)).terminate('test done');
  });

  it('the workflow’s validator refuses a malformed Update before anything is written to its history', async () => {
    const link = await newLink(world.emulator.api, 1000);
    // Through the API the schemas refuse first; straight to Temporal, the workflow's validator does.
    await call('POST', `/commands/paymentLinks/${link.id}/sync`, { reason: 'open a run' });
    const handle = env.client.workflow.getHandle(paymentLinkWorkflowId(link.id));
    await eventually(async () => ((await handle.query(paymentLinkViewQuery)).syncs > 0 ? true : undefined));
    const before = (await handle.fetchHistory()).events?.length ?? 0;
    const refused = await handle
      .executeUpdate(linkCommandUpdate, {
        args: [
          {
            kind: 'recordExternalPayment',
            command: { commandId: 'bad-1', amountCents: -5, paidAt: '2026-03-01' },
          },
        ],
        updateId: 'bad-1',
      })
      .then(
        () => null,
        (error: Error) => error,
      );
    expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((refused as WorkflowUpdateFailedError).cause?.message).toMatch(/amountCents/);
    const history = (await handle.fetchHistory()).events ?? [];
    expect(history.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).toBe(false);
    expect(history.length - before).toBeLessThanOrEqual(3); // at most the workflow task that ran the validator
  });

  it('answers a refused apply with the service’s status, code and message, and books nothing', async () => {
    const link = await newLink(world.emulator.api, 1000);
    const deposit = await newDeposit(world.emulator.api, 5000);
    // The link's and the deposit's own entries may land at any moment; the refused apply books nothing joining them.
    const onTheLink = async () =>
      (await world.ledger.allEntries())
        .filter((e) => e.links.paymentLinkId === link.id && e.links.checkDepositId === deposit.id)
        .map((e) => e.key);
    const before = await onTheLink();
    const over = await call('POST', `/commands/checkDeposits/${deposit.id}/apply`, {
      paymentLinkId: link.id,
      amountCents: 2000,
    });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatch(/exceed|remain/i);
    const missing = await call('POST', `/commands/checkDeposits/${deposit.id}/apply`, {
      paymentLinkId: 'pl_does_not_exist',
    });
    expect(missing.status).toBe(404);
    expect(await onTheLink()).toEqual(before);
    await env.client.workflow.getHandle(checkDepositWorkflowId(deposit.id)).terminate('test done');
  });

  it('answers a reference used for another record with 409 REFERENCE_CONFLICT, and a void of nothing with 404', async () => {
    const link = await newLink(world.emulator.api, 9000);
    const record = (amountCents: number) =>
      call('POST', `/commands/paymentLinks/${link.id}/externalPayments`, {
        amountCents,
        paidAt: '2026-03-04',
        externalReferenceId: 'check-4417',
      });
    expect((await record(1000)).status).toBe(201);
    const conflict = await record(2000);
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('REFERENCE_CONFLICT');
    const deposit = await newDeposit(world.emulator.api, 500);
    await call('POST', `/commands/checkDeposits/${deposit.id}/refresh`);
    const voided = await eventually(async () => {
      const answer = await call('POST', `/commands/checkDeposits/${deposit.id}/applications/ep_never/void`);
      return answer.status === 404 && answer.body.code === 'UnknownApplication' ? answer : undefined;
    });
    expect(voided.body.error).toMatch(/not an application/);
    await env.client.workflow.getHandle(checkDepositWorkflowId(deposit.id)).terminate('test done');
  });

  it('applies a deposit and answers with the application and the link’s remainder; the same Idempotency-Key again answers the same, applied once', async () => {
    const link = await newLink(world.emulator.api, 4000);
    const deposit = await newDeposit(world.emulator.api, 2500);
    const headers = {
      authorization: `Bearer ${apiKey}`,
      'idempotency-key': '6f1c2d3e-4b5a-4c6d-8e7f-901234567890',
    };
    const first = await call(
      'POST',
      `/commands/checkDeposits/${deposit.id}/apply`,
      { paymentLinkId: link.id },
      headers,
    );
    expect(first).toMatchObject({
      status: 201,
      body: {
        workflowId: checkDepositWorkflowId(deposit.id),
        commandId: '6f1c2d3e-4b5a-4c6d-8e7f-901234567890',
        application: {
          status: 'APPLIED',
          paymentLinkId: link.id,
          amountCents: 2500,
          linkRemainderCents: 1500,
        },
      },
    });
    const again = await call(
      'POST',
      `/commands/checkDeposits/${deposit.id}/apply`,
      { paymentLinkId: link.id },
      headers,
    );
    expect(again).toEqual(first);
    // The outcome can be asked for later too (the 202 case's URL).
    expect(
      await call(
        'GET',
        `/commands/checkDeposits/${deposit.id}/applications/6f1c2d3e-4b5a-4c6d-8e7f-901234567890`,
      ),
    ).toEqual(first);

    const view = await eventually(async () => {
      const answer = await call('GET', `/commands/checkDeposits/${deposit.id}`);
      return answer.status === 200 &&
        answer.body.applications[0]?.status === 'APPLIED' &&
        answer.body.polls >= 1
        ? answer.body
        : undefined;
    });
    expect(view.applications).toHaveLength(1);
    const fetched = (await world.emulator.api('GET', `/serviceBanking/checkDeposits/${deposit.id}`)).body;
    expect(fetched.applications).toHaveLength(1);
    expect(fetched.unappliedAmountCents).toBe(0);
    await checkWithHledger(world.ledger);
    const handle = env.client.workflow.getHandle(checkDepositWorkflowId(deposit.id));
    await handle.terminate('test done');
    if (process.env.BOOKSYNC_RECORD_HISTORIES) {
      writeFileSync(
        path.join(fixturesDir, 'histories', 'check-deposit-applied-by-update.json'),
        `${historyToJSON(await handle.fetchHistory())}\n`,
      );
    }
  });
});
