import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { newLink } from '@booksync/emulator/harness';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PaymentLinkView,
  paymentLinkViewQuery,
  paymentLinkWorkflowId,
  recordDebitMemoSignal,
  recordExternalPaymentSignal,
  syncPaymentLinkSignal,
  voidDebitMemoSignal,
  voidExternalPaymentSignal,
} from '../../../src/flows/payment-link/contract.js';
import { paymentLink } from '../../../src/flows/payment-link/workflow.js';
import { entryKeys } from '../../../src/ledger/entry-key.js';
import { checkWithHledger } from '../../support/hledger.js';
import { balancesByRole, type SyncWorld, startSyncWorld, withWorker } from '../../support/sync-world.js';
import { fixturesDir, startDevServer, workflowBundle } from '../../support/temporal.js';
import { eventually } from '../../support/wait-for.js';

// The payment-link workflow on a real Temporal dev server, the emulator over HTTP, a real ledger file.

let env: TestWorkflowEnvironment;
let bundle: { codePath: string };
let world: SyncWorld;

beforeAll(async () => {
  [env, bundle, world] = await Promise.all([startDevServer(), workflowBundle(), startSyncWorld()]);
});
afterAll(async () => {
  await world?.close();
  await env?.teardown();
});

describe('payment link workflow (dev server, emulator over HTTP, real ledger)', () => {
  it('mirrors commands and records made or voided directly at the service', async () => {
    const link = await newLink(world.emulator.api, 10_000);
    const before = await balancesByRole(world.ledger);
    const delta = async () => {
      const now = await balancesByRole(world.ledger);
      return {
        ChecksToDeposit: now.ChecksToDeposit - before.ChecksToDeposit,
        AccountsReceivable: now.AccountsReceivable - before.AccountsReceivable,
        Revenue: now.Revenue - before.Revenue,
        FeeIncome: now.FeeIncome - before.FeeIncome,
        OperatingBank: now.OperatingBank - before.OperatingBank,
      };
    };

    await withWorker(env, bundle, world.activities, async (taskQueue) => {
      const handle = await env.client.workflow.signalWithStart(paymentLink, {
        workflowId: paymentLinkWorkflowId(link.id),
        taskQueue,
        args: [{ paymentLinkId: link.id }],
        signal: recordExternalPaymentSignal,
        signalArgs: [{ amountCents: 3000, paidAt: '2026-03-01', commandId: 'pay-1' }],
      });
      const when = (done: (v: PaymentLinkView) => boolean) =>
        eventually(async () => {
          const v = await handle.query(paymentLinkViewQuery);
          return done(v) ? v : undefined;
        });

      // A partial external payment: the link stays ACTIVE, the money waits in Checks To Deposit. The first
      // sync also booked the invoice (100.00 receivable, as revenue), so 70.00 is still owed.
      let view = await when((v) => v.syncs >= 1 && v.commands.length === 1);
      expect(view.commands[0]).toMatchObject({
        commandId: 'pay-1',
        status: 'DONE',
        externalReferenceId: 'booksync:pay-1',
      });
      expect(view).toMatchObject({ serviceStatus: 'ACTIVE', completedAmountCents: 3000 });
      const paymentId = view.commands[0]!.recordId!;
      expect(view.booked).toEqual([
        { key: entryKeys.externalPayment(paymentId), status: 'live', amountCents: 3000 },
      ]);
      expect(await delta()).toEqual({
        ChecksToDeposit: 3000,
        AccountsReceivable: 7000,
        Revenue: -10_000,
        FeeIncome: 0,
        OperatingBank: 0,
      });

      // A debit memo: owed more, earned as Fee Income.
      await handle.signal(recordDebitMemoSignal, {
        amountCents: 500,
        description: 'Late fee',
        commandId: 'memo-1',
      });
      view = await when((v) => v.commands.length === 2 && v.debitMemos.length === 1);
      expect(view.requestedAmountCents).toBe(10_500);
      const memoId = view.commands[1]!.recordId!;
      expect(await delta()).toEqual({
        ChecksToDeposit: 3000,
        AccountsReceivable: 7500,
        Revenue: -10_000,
        FeeIncome: -500,
        OperatingBank: 0,
      });

      // Voided at the service directly (not through a command), and records made there (the dashboard):
      // the next sync reverses the one and books the others.
      expect(
        (await world.emulator.api('POST', `/paymentLink/${link.id}/externalPayment/${paymentId}/void`))
          .status,
      ).toBe(200);
      const direct = await world.emulator.api('POST', `/paymentLink/${link.id}/externalPayment`, {
        amountCents: 700,
        paidAt: '2026-03-05',
      });
      expect(direct.status).toBe(201);
      const directMemo = await world.emulator.api('POST', `/paymentLink/${link.id}/debitMemo`, {
        amountCents: 200,
        description: 'Finance charge',
      });
      expect(directMemo.status).toBe(201);
      await handle.signal(syncPaymentLinkSignal, { reason: 'test: changed at the service' });
      view = await when((v) => v.lastSync?.reason === 'test: changed at the service');
      expect(view.lastSync?.reversed).toEqual([entryKeys.externalPayment(paymentId)]);
      expect(view.lastSync?.posted.sort()).toEqual(
        [
          entryKeys.externalPayment(direct.body.externalPayment.id),
          entryKeys.debitMemo(directMemo.body.debitMemo.id),
        ].sort(),
      );
      expect(view.externalPayments.map((p) => p.id)).toEqual([direct.body.externalPayment.id]);
      expect(await delta()).toEqual({
        ChecksToDeposit: 700,
        AccountsReceivable: 10_000,
        Revenue: -10_000,
        FeeIncome: -700,
        OperatingBank: 0,
      });

      // Voids by command: the memo, then the direct payment.
      await handle.signal(voidDebitMemoSignal, { debitMemoId: memoId, commandId: 'void-memo-1' });
      await handle.signal(voidExternalPaymentSignal, {
        externalPaymentId: direct.body.externalPayment.id,
        commandId: 'void-pay-2',
      });
      view = await when(
        (v) =>
          v.commands.filter((c) => c.kind.startsWith('void')).length === 2 &&
          v.externalPayments.length === 0 &&
          v.debitMemos.length === 1,
      );
      expect(view.commands.filter((c) => c.kind.startsWith('void')).map((c) => c.status)).toEqual([
        'DONE',
        'DONE',
      ]);
      expect(await delta()).toEqual({
        ChecksToDeposit: 0,
        AccountsReceivable: 10_200,
        Revenue: -10_000,
        FeeIncome: -200,
        OperatingBank: 0,
      });

      // What the invoice still owes in the books is the service's remainder.
      const fetched = (await world.emulator.api('GET', `/paymentLink/${link.id}`)).body;
      const owed = (await world.ledger.openItems('receivable')).find((i) => i.documentId === link.id);
      expect(owed?.openCents).toBe(fetched.requestedAmountCents - fetched.completedAmountCents);
      expect(owed?.openCents).toBe(10_200);

      // A refused command shows in the view and the search attributes; the workflow goes on.
      await handle.signal(recordExternalPaymentSignal, {
        amountCents: 1_000_000,
        paidAt: '2026-03-06',
        commandId: 'too-much',
      });
      // The command shows FAILED at once; the flag is raised when its batch (the sync after it) is done.
      view = await when((v) => v.commands.some((c) => c.commandId === 'too-much') && v.lastError !== null);
      expect(view.commands.at(-1)).toMatchObject({
        status: 'FAILED',
        errorType: 'ServiceValidationError',
        httpStatus: 400,
      });
      expect(view.lastError).toMatch(/ServiceValidationError/);
      const attributes = (await handle.describe()).searchAttributes;
      expect(attributes.NeedsAttention).toEqual([true]);
      expect(attributes.PaymentLinkId).toEqual([link.id]);
      expect((await world.emulator.api('GET', `/paymentLink/${link.id}`)).body.status).toBe('ACTIVE');
      await handle.terminate('test done');
      if (process.env.BOOKSYNC_RECORD_HISTORIES) {
        writeFileSync(
          path.join(fixturesDir, 'histories', 'payment-link-commands-and-dashboard-records.json'),
          `${historyToJSON(await handle.fetchHistory())}\n`,
        );
      }
    });
    await checkWithHledger(world.ledger);
  });
});
