import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { newLink } from '@booksync/emulator/harness';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositSlipWorkflowId } from '../../src/flows/deposit-slip/contract.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { booksyncCli } from '../support/booksync-cli.js';
import { type CommandApiStack, startCommandApiStack } from '../support/command-api-stack.js';
import { fixturesDir } from '../support/temporal.js';
import { eventually } from '../support/wait-for.js';

// Deposit slips through the command API and `booksync link deposit`: real HTTP into the ingress, the
// depositSlip workflow on a real Temporal dev server, the real activity and ledger. External payments are
// recorded by command first (booked Dr Checks To Deposit by their link's workflow), then a slip takes them
// to the bank: Checks To Deposit back to what it was, the operating bank up by the total.

const apiKey = 'deposit-slip-test-key-0123456789';
let stack: CommandApiStack;

beforeAll(async () => {
  stack = await startCommandApiStack({ taskQueuePrefix: 'slips', apiKey, answerWithinMs: 5_000 });
}, 180_000);
afterAll(async () => {
  await stack?.close();
});

async function call(method: string, url: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
  if (method === 'POST') headers['idempotency-key'] = randomUUID();
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${stack.baseUrl}${url}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies asserted on
  return { status: response.status, body: (text ? JSON.parse(text) : null) as any };
}

/** Records an external payment on a new link by command and waits for its entry; its ids. */
async function recordedPayment(cents: number, paidAt: string) {
  const link = await newLink(stack.world.emulator.api, 10_000);
  const recorded = await call('POST', `/commands/paymentLinks/${link.id}/externalPayments`, {
    amountCents: cents,
    paidAt,
  });
  expect(recorded.status).toBe(201);
  const externalPaymentId = recorded.body.result.recordId as string;
  await eventually(async () =>
    (await stack.world.ledger.get(`external-payment:${externalPaymentId}`)) ? true : undefined,
  );
  return { paymentLinkId: link.id as string, externalPaymentId };
}

const checks = () => stack.world.ledger.balanceOf(Accounts.ChecksToDeposit);
const bank = () => stack.world.ledger.balanceOf(Accounts.OperatingBank);

describe('deposit slips by command', () => {
  it('books a slip (201), answers the same slip again with 200 and books nothing more, refuses another slip of the same number (422)', async () => {
    const checksBefore = await checks();
    const bankBefore = await bank();
    const a = await recordedPayment(1_500, '2026-03-02');
    const b = await recordedPayment(2_250, '2026-03-03');
    expect((await checks()) - checksBefore).toBe(3_750);

    const slip = { reference: 'SLIP-100', date: '2026-03-04', payments: [a, b] };
    const booked = await call('POST', '/commands/depositSlips', slip);
    expect(booked).toMatchObject({
      status: 201,
      body: {
        workflowId: depositSlipWorkflowId('SLIP-100'),
        key: 'deposit-slip:SLIP-100',
        date: '2026-03-04',
        totalCents: 3_750,
        created: true,
      },
    });
    expect(await checks()).toBe(checksBefore);
    expect((await bank()) - bankBefore).toBe(3_750);
    const entry = await stack.world.ledger.get('deposit-slip:SLIP-100');
    expect(entry?.links).toEqual({ depositSlipId: 'SLIP-100' });

    const again = await call('POST', '/commands/depositSlips', slip);
    expect(again.status).toBe(200);
    expect(again.body.created).toBe(false);
    expect(await call('GET', '/commands/depositSlips/SLIP-100')).toMatchObject({
      status: 200,
      body: { key: 'deposit-slip:SLIP-100', created: false },
    });
    expect((await bank()) - bankBefore).toBe(3_750);

    const other = await call('POST', '/commands/depositSlips', { ...slip, payments: [a] });
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({
      code: 'deposit_slip_refused',
      reasons: [
        'deposit slip SLIP-100 is booked already with other contents (2026-03-04, 2 checks, $37.50): a slip number is booked once',
      ],
    });
    if (process.env.BOOKSYNC_RECORD_HISTORIES) {
      const handle = stack.env.client.workflow.getHandle(depositSlipWorkflowId('SLIP-100'));
      writeFileSync(
        path.join(fixturesDir, 'histories', 'depositSlip-booked.json'),
        `${historyToJSON(await handle.fetchHistory())}\n`,
      );
    }
  });

  it('400 for a slip the contract refuses, before any workflow starts', async () => {
    const bad = await call('POST', '/commands/depositSlips', {
      reference: 'has space',
      date: '2026-02-30',
      payments: [],
    });
    expect(bad.status).toBe(400);
    expect(
      await call('POST', '/commands/depositSlips', { reference: 'SLIP-X', date: '2026-03-01', payments: [] }),
    ).toMatchObject({ status: 400 });
  });

  it('booksync link deposit books a slip and prints it; a refused slip exits 1 with the reasons', async () => {
    const a = await recordedPayment(4_000, '2026-03-05');
    const bankBefore = await bank();
    const env = { INGRESS_PUBLIC_URL: stack.baseUrl, COMMAND_API_KEY: apiKey };
    const run = await booksyncCli(
      [
        'link',
        'deposit',
        '--date',
        '2026-03-06',
        '--reference',
        'SLIP-200',
        `${a.paymentLinkId}:${a.externalPaymentId}`,
      ],
      env,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(
      'deposit slip SLIP-200 booked: 1 check, $40.00 to the operating bank on 2026-03-06 (deposit-slip:SLIP-200)',
    );
    expect((await bank()) - bankBefore).toBe(4_000);

    const refused = await booksyncCli(
      [
        'link',
        'deposit',
        '--date',
        '2026-03-06',
        '--reference',
        'SLIP-201',
        `${a.paymentLinkId}:${a.externalPaymentId}`,
      ],
      env,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `booksync: command API answered 422: deposit slip refused: external payment ${a.externalPaymentId} is on deposit slip SLIP-200 already (deposit_slip_refused)`,
    );
    const usage = await booksyncCli(
      ['link', 'deposit', '--date', '2026-03-06', '--reference', 'SLIP-202'],
      env,
    );
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('give at least one <linkId>:<externalPaymentId>');
  });
});
