import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  webhookDeliveryPrefix,
  webhookDeliveryWorkflowId,
} from '@booksync/emulator/webhooks/webhook-delivery';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentWorkflowId } from '../../src/flows/payment/contract.js';
import { paymentLinkWorkflowId } from '../../src/flows/payment-link/contract.js';
import type { ReconcilePageResult } from '../../src/flows/reconciliation/activities-contract.js';
import { type RunningIngress, startIngress } from '../../src/ingress/main.js';
import { silentLogger } from '../../src/logging/logger.js';
import {
  legacyWorkflowIdFor,
  parseWorkflowId,
  RECONCILIATION_REQUESTS_WORKFLOW_ID,
  WORKFLOW_ID_ESCAPE,
  WORKFLOW_ID_PREFIXES,
  type WorkflowKind,
  workflowIdFor,
} from '../../src/workflow-safe/workflow-ids.js';
import {
  deliverEvent,
  envelope,
  request,
  secretA,
  serviceEventSignals,
  terminateAll,
  workflowExists,
} from '../ingress/harness.js';
import { fixturesDir, startDevServer, uniqueTaskQueue, workflowBundle } from '../support/temporal.js';

// Workflow ids were `prefix + id`, and 'payment-' is a prefix of 'payment-link-', so payment
// `link-X` landed on the workflow of payment link `X`. Now one module builds every id, injectively, keeping
// the first release's id for every id it did not make ambiguous (running workflows stay reachable).

const kinds = Object.keys(WORKFLOW_ID_PREFIXES) as WorkflowKind[];
/** Ids biased towards the dangerous starts: another prefix's tail, the escape mark, or both. */
const ids = fc.oneof(
  fc.string(),
  fc
    .tuple(
      fc.constantFrom(
        'link-',
        'scheduled',
        'scheduled-',
        WORKFLOW_ID_ESCAPE,
        `${WORKFLOW_ID_ESCAPE}link-`,
        '-',
      ),
      fc.string(),
    )
    .map(([start, rest]) => start + rest),
);

describe('the workflow id scheme', () => {
  it('property: no two (kind, id) pairs share a workflow id, and each id reads back as its pair', () => {
    fc.assert(
      fc.property(fc.constantFrom(...kinds), ids, fc.constantFrom(...kinds), ids, (k1, i1, k2, i2) => {
        const a = workflowIdFor(k1, i1);
        const b = workflowIdFor(k2, i2);
        if (a === b) expect({ k1, i1 }).toEqual({ k1: k2, i1: i2 });
        expect(parseWorkflowId(a)).toEqual({ kind: k1, id: i1 });
        expect(a).not.toBe(RECONCILIATION_REQUESTS_WORKFLOW_ID);
      }),
      { numRuns: 5_000 },
    );
  });

  it('keeps the first release id of every id it does not escape, and escapes only payment and reconcile-run ids', () => {
    fc.assert(
      fc.property(fc.constantFrom(...kinds), ids, (kind, id) => {
        const escaped = workflowIdFor(kind, id) !== legacyWorkflowIdFor(kind, id);
        const ambiguous =
          (kind === 'payment' && (id.startsWith('link-') || id.startsWith(WORKFLOW_ID_ESCAPE))) ||
          (kind === 'reconciliationRun' && (id.startsWith('scheduled') || id.startsWith(WORKFLOW_ID_ESCAPE)));
        expect(escaped).toBe(ambiguous);
      }),
      { numRuns: 5_000 },
    );
    expect(paymentWorkflowId('link-abc')).toBe('payment-~link-abc');
    expect(paymentLinkWorkflowId('abc')).toBe('payment-link-abc');
    expect(paymentWorkflowId('pay_1')).toBe('payment-pay_1');
  });

  it("reserves the embedded emulator's delivery ids, which the emulator builds itself, as a kind no id can reach", () => {
    expect(webhookDeliveryPrefix).toBe(WORKFLOW_ID_PREFIXES.webhookDelivery);
    const eventId = '5f0c2a7e-3b1d-4c55-9a8e-2f6d0b1c9e44';
    expect(webhookDeliveryWorkflowId(eventId)).toBe(workflowIdFor('webhookDelivery', eventId));
    expect(parseWorkflowId(webhookDeliveryWorkflowId(eventId))).toEqual({
      kind: 'webhookDelivery',
      id: eventId,
    });
    fc.assert(
      fc.property(fc.constantFrom(...kinds.filter((k) => k !== 'webhookDelivery')), ids, (kind, id) => {
        expect(workflowIdFor(kind, id).startsWith(webhookDeliveryPrefix)).toBe(false);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('on a real Temporal server', () => {
  let env: TestWorkflowEnvironment;
  let ingress: RunningIngress;
  const taskQueue = uniqueTaskQueue('workflow-ids');
  const commandKey = 'command-key-for-workflow-id-tests';
  const started = new Set<string>();

  beforeAll(async () => {
    env = await startDevServer();
    ingress = await startIngress({
      temporal: { client: env.client },
      taskQueue,
      webhookSecrets: [secretA],
      commandApiKey: commandKey,
      logger: silentLogger,
    });
  });
  afterAll(async () => {
    await ingress?.close();
    if (env) {
      await terminateAll(env.client, started);
      await env.teardown();
    }
  });

  it('payment `link-X` and payment link `X` get two workflows of their own types', async () => {
    const linkId = `pl${Date.now()}`;
    const answer = await deliverEvent(
      ingress.address,
      envelope('payment.made', 'payment', { associated_object_id: `link-${linkId}` }),
    );
    expect(answer.status).toBe(200);
    const command = await request(`${ingress.address}/commands/paymentLinks/${linkId}/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${commandKey}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(command.status).toBe(202);
    const paymentWf = String(answer.json.workflowId);
    const linkWf = String(command.json.workflowId);
    started.add(paymentWf).add(linkWf);

    expect(paymentWf).not.toBe(linkWf);
    expect(paymentWf).toBe(`payment-~link-${linkId}`);
    expect(linkWf).toBe(`payment-link-${linkId}`);
    expect((await env.client.workflow.getHandle(paymentWf).describe()).type).toBe('payment');
    expect((await env.client.workflow.getHandle(linkWf).describe()).type).toBe('paymentLink');
    // The link's workflow got the command only, never the payment's event.
    expect(await serviceEventSignals(env.client, linkWf)).toEqual([]);
  });

  it('a workflow already running under its first-release id still receives the next event', async () => {
    const paymentId = `pay_running_${Date.now()}`;
    const legacyId = legacyWorkflowIdFor('payment', paymentId);
    await env.client.workflow.start('payment', { workflowId: legacyId, taskQueue, args: [{ paymentId }] });
    started.add(legacyId);
    const event = envelope('payment.refunded', 'payment', { associated_object_id: paymentId });
    const answer = await deliverEvent(ingress.address, event);
    expect(answer).toMatchObject({ status: 200, json: { workflowId: legacyId } });
    expect(await serviceEventSignals(env.client, legacyId)).toEqual([
      expect.objectContaining({ eventId: event.id, objectId: paymentId }),
    ]);
  });

  it('reconciliation watches payment `link-X` on its own workflow; a history recorded before replays', async () => {
    const queue = uniqueTaskQueue('workflow-ids-reconcile');
    const zero = { paymentLink: 0, payment: 0, disbursement: 0, checkDeposit: 0 };
    const page: ReconcilePageResult = {
      nextPageToken: null,
      phase: 'done',
      examined: { ...zero, payment: 1 },
      drift: [],
      problems: [],
      achWindowsToWatch: ['link-new-1'],
    };
    const bundle = await workflowBundle();
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      taskQueue: queue,
      workflowBundle: bundle,
      activities: {
        reconcilePage: async () => page,
        // The watched payment's own sync is not this test's subject.
        syncPayment: async () => {
          throw ApplicationFailure.nonRetryable('not synced in this test');
        },
      },
    });
    await worker.runUntil(async () => {
      const handle = await env.client.workflow.start('reconciliation', {
        workflowId: `reconcile-ids-${Date.now()}`,
        taskQueue: queue,
        args: [{ scope: { kind: 'all' } }],
      });
      await handle.result();
      started.add('payment-~link-new-1');
      expect((await env.client.workflow.getHandle('payment-~link-new-1').describe()).type).toBe('payment');
      expect(await workflowExists(env.client, 'payment-link-new-1')).toBe(false);
      await env.client.workflow.getHandle('payment-~link-new-1').terminate('test over');
    });

    // Recorded by the release before (its child is `payment-link-legacy-1`): patched() keeps that id.
    const file = 'reconciliation-watches-link-prefixed-payment';
    const history = JSON.parse(readFileSync(path.join(fixturesDir, 'histories', `${file}.json`), 'utf8'));
    const recorded = JSON.stringify(history);
    expect(recorded).toContain('"workflowId":"payment-link-legacy-1"');
    await expect(Worker.runReplayHistory({ workflowBundle: bundle }, history, file)).resolves.toBeUndefined();
  });
});
