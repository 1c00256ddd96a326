import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DepositSlip, DepositSlipOutcome } from '../../src/flows/deposit-slip/contract.js';
import { SqliteTargetIndex } from '../../src/flows/push/target-index.js';
import type { IngressApp } from '../../src/ingress/ingress-app.js';
import { createIngress } from '../../src/ingress/server.js';
import { Accounts } from '../../src/ledger/chart-of-accounts.js';
import { bookDepositSlip, DepositSlipRefusedError } from '../../src/ledger/deposit-slips.js';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { consoleTemporalFake } from './console-fakes.js';
import { form, formHeaders, session } from './console-inject.js';

// The console's Checks to deposit page: the external payments still in Checks To Deposit, oldest first with
// their age, and the deposit slip form (bookkeeper only, CSRF token, audited). The Temporal client is a
// stand-in whose depositSlip run is the workflow's one activity against the page's own ledger.

const password = 'correct horse battery staple';
const readonlyPassword = 'reader-only-password';
let ledger: EmbeddedLedger;
let app: IngressApp;
const started: { workflowType: string; workflowId: string; args: unknown[] }[] = [];

function slipRunningClient(): Client {
  const base = consoleTemporalFake().client as unknown as { workflow: Record<string, unknown> };
  return {
    ...base,
    workflow: {
      ...base.workflow,
      async execute(
        workflowType: string,
        options: { workflowId: string; args: [DepositSlip] },
      ): Promise<DepositSlipOutcome> {
        started.push({ workflowType, workflowId: options.workflowId, args: options.args });
        try {
          return { status: 'BOOKED', slip: await bookDepositSlip(ledger, options.args[0]) };
        } catch (error) {
          if (!(error instanceof DepositSlipRefusedError)) throw error;
          return { status: 'REFUSED', reasons: [...error.reasons] };
        }
      },
    },
  } as unknown as Client;
}

async function externalPayment(link: string, id: string, cents: number, date: string) {
  await ledger.post({
    key: `external-payment:${id}`,
    date,
    description: `External payment ${id} on payment link ${link}`,
    lines: [
      { account: Accounts.ChecksToDeposit, amountCents: cents },
      { account: Accounts.AccountsReceivable, amountCents: -cents },
    ],
    links: { paymentLinkId: link, externalPaymentId: id },
  });
}

beforeAll(async () => {
  ledger = EmbeddedLedger.open();
  await externalPayment('link_b', 'ep_new', 2_500, '2026-03-10');
  await externalPayment('link_a', 'ep_old', 1_000, '2026-03-01');
  app = createIngress({
    temporalClient: slipRunningClient(),
    taskQueue: 'console-test',
    webhookSecrets: ['whsec_console_test'],
    commandApiKey: 'console-test-command-api-key-0123',
    console: {
      ledger,
      targetIndex: new SqliteTargetIndex(ledger.database),
      targets: [],
      credentials: { password, readonlyPassword },
      timeZone: 'UTC',
      secureCookie: false,
      now: () => new Date('2026-03-15T12:00:00Z'),
    },
  });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  ledger?.close();
});

const rowsOf = (body: string) =>
  [
    ...body.matchAll(
      /<tr data-external-payment="([^"]+)" data-cents="(\d+)">.*?<td class="num">(\d+)<\/td>/gs,
    ),
  ].map((m) => ({ id: m[1], cents: Number(m[2]), days: Number(m[3]) }));

describe('the Checks to deposit page', () => {
  it('lists the checks oldest first with their age; a reader sees no form and cannot post one', async () => {
    const reader = await session(app, readonlyPassword, 'reader');
    const page = await app.inject({
      method: 'GET',
      url: '/console/checks-to-deposit',
      headers: { cookie: reader.cookie },
    });
    expect(page.statusCode).toBe(200);
    expect(rowsOf(page.body)).toEqual([
      { id: 'ep_old', cents: 1_000, days: 14 },
      { id: 'ep_new', cents: 2_500, days: 5 },
    ]);
    expect(page.body).toContain('data-total-cents="3500"');
    expect(page.body).not.toContain('action="/console/checks-to-deposit"');
    const posted = await app.inject({
      method: 'POST',
      url: '/console/checks-to-deposit',
      headers: formHeaders(reader.cookie),
      payload: form({ _csrf: reader.csrf, date: '2026-03-12', reference: 'R-1', 'pay:link_a:ep_old': 'yes' }),
    });
    expect(posted.statusCode).toBe(403);
    expect(started).toEqual([]);
  });

  it('refuses a post without the form token, and books nothing', async () => {
    const bookkeeper = await session(app, password);
    const posted = await app.inject({
      method: 'POST',
      url: '/console/checks-to-deposit',
      headers: formHeaders(bookkeeper.cookie),
      payload: form({ date: '2026-03-12', reference: 'R-1', 'pay:link_a:ep_old': 'yes' }),
    });
    expect(posted.statusCode).toBe(403);
    expect(started).toEqual([]);
  });

  it('books the ticked checks as one slip through the depositSlip workflow, shows the refusal of a bad one, and audits both', async () => {
    const bookkeeper = await session(app, password);
    const post = (fields: Record<string, string>) =>
      app.inject({
        method: 'POST',
        url: '/console/checks-to-deposit',
        headers: formHeaders(bookkeeper.cookie),
        payload: form({ _csrf: bookkeeper.csrf, ...fields }),
      });
    const early = await post({ date: '2026-03-05', reference: 'R-9', 'pay:link_b:ep_new': 'yes' });
    expect(early.statusCode).toBe(200);
    expect(early.body).toContain('class="error"');
    expect(early.body).toContain(
      'external payment ep_new was paid on 2026-03-10, after the bank date 2026-03-05',
    );

    const booked = await post({ date: '2026-03-12', reference: 'R-10', 'pay:link_a:ep_old': 'yes' });
    expect(booked.statusCode).toBe(200);
    expect(booked.body).toContain(
      'Deposit slip R-10 booked: 1 check, $10.00 to the operating bank on 2026-03-12.',
    );
    expect(started.at(-1)).toEqual({
      workflowType: 'depositSlip',
      workflowId: 'deposit-slip-R-10',
      args: [
        {
          reference: 'R-10',
          date: '2026-03-12',
          payments: [{ paymentLinkId: 'link_a', externalPaymentId: 'ep_old' }],
        },
      ],
    });
    expect(rowsOf(booked.body).map((r) => r.id)).toEqual(['ep_new']);
    expect(await ledger.balanceOf(Accounts.ChecksToDeposit)).toBe(2_500);
    expect(await ledger.balanceOf(Accounts.OperatingBank)).toBe(1_000);

    const none = await post({ date: '2026-03-12', reference: 'R-11' });
    expect(none.body).toContain('payments: at least one external payment');

    const audit = await app.inject({
      method: 'GET',
      url: '/console/audit',
      headers: { cookie: bookkeeper.cookie },
    });
    expect(audit.body).toContain('deposit slip R-10 on 2026-03-12: ep_old');
    expect(audit.body).toContain('deposit slip R-9 on 2026-03-05: ep_new');
  });
});
