import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { MockActivityEnvironment } from '@temporalio/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAccountingTargetActivities } from '../../../src/flows/push/activities.js';
import { outageFlaggedAtAttempt } from '../../../src/flows/push/attempt.js';
import { SqliteTargetIndex } from '../../../src/flows/push/target-index.js';
import { Accounts } from '../../../src/ledger/chart-of-accounts.js';
import type { ReferenceData } from '../../../src/targets/documents.js';
import { TargetRefusedError, TargetUnavailableError } from '../../../src/targets/errors.js';
import { pushOneByOne } from '../../../src/targets/push-one-by-one.js';
import type { AccountingTarget, PushResult, TargetDocument } from '../../../src/targets/target-port.js';
import { type ActivityWorld, activityWorld, quietActivityEnvironment, runActivity } from '../fakes.js';

// The push activity with a target that records what it is sent: an attempt cancelled mid-slice (timed out
// or its heartbeat lost) writes nothing more; an outage is retried quietly for a few attempts, then ends the
// attempt so the push workflow flags it and tries again at its next poll.

const name = 'recording';
let world: ActivityWorld;
let sent: string[];
/** The documents the push told the target to look up first (PushContext.mayExist). */
let lookedUp: string[];
let onPush: (document: TargetDocument, env: MockActivityEnvironment) => void;
let env: MockActivityEnvironment;

const target: AccountingTarget = {
  name,
  verify: async () => {},
  async push(document, context): Promise<PushResult> {
    if (context.mayExist(document.key)) lookedUp.push(document.key);
    onPush(document, env);
    sent.push(document.key);
    return {
      key: document.key,
      remoteIds: [`r-${document.key}`],
      contentHash: document.contentHash,
      created: true,
    };
  },
  find: async () => null,
  lockedThrough: async () => null,
  batches: false,
  pushMany: (documents, context) => pushOneByOne(target, documents, context),
  warning: () => null,
  close: async () => {},
};

function activities() {
  return createAccountingTargetActivities({
    ...world.deps,
    targets: {
      targets: new Map([[name, target]]),
      index: new SqliteTargetIndex(world.ledger.database),
      references: {} as ReferenceData,
      inFlightWaitMs: 90_000,
    },
  });
}

beforeEach(async () => {
  world = activityWorld();
  sent = [];
  lookedUp = [];
  onPush = () => {};
  for (const n of [1, 2, 3, 4]) {
    await world.ledger.post({
      key: `payment:p${n}`,
      date: '2026-11-02',
      description: `payment ${n}`,
      lines: [
        { account: Accounts.ProcessorClearing, amountCents: 1_000 * n },
        { account: Accounts.AccountsReceivable, amountCents: -1_000 * n },
      ],
      links: { paymentId: `p${n}` },
    });
  }
});
afterEach(() => world.close());

describe('pushToTarget', () => {
  it('pushes the slice in posting order and records each document', async () => {
    env = quietActivityEnvironment({ activityType: 'pushToTarget' });
    const result = await runActivity(env, activities().pushToTarget, { target: name, limit: 10 });
    expect(sent).toEqual(['payment:p1', 'payment:p2', 'payment:p3', 'payment:p4']);
    expect(result.summary).toMatchObject({ pushed: 4, pending: 0, failed: 0 });
  });

  it('an attempt cancelled mid-slice (timed out, heartbeat lost) writes nothing more to the target', async () => {
    env = quietActivityEnvironment({ activityType: 'pushToTarget' });
    onPush = (document, current) => {
      if (document.key === 'payment:p2') current.cancel('TIMED_OUT');
    };
    const error = await runActivity(env, activities().pushToTarget, { target: name, limit: 10 }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(CancelledFailure);
    // p2 was already on its way when the attempt lost its lease; p3 and p4 are left to the retry.
    expect(sent).toEqual(['payment:p1', 'payment:p2']);
    const retry = quietActivityEnvironment({ activityType: 'pushToTarget', attempt: 2 });
    env = retry;
    onPush = () => {};
    const result = await runActivity(retry, activities().pushToTarget, { target: name, limit: 10 });
    expect(sent).toEqual(['payment:p1', 'payment:p2', 'payment:p3', 'payment:p4']);
    expect(result.summary).toMatchObject({ pushed: 4, pending: 0 });
  });

  it('writes ahead: a normal push looks nothing up; the retry of an attempt cut short looks up only what it was writing', async () => {
    env = quietActivityEnvironment({ activityType: 'pushToTarget' });
    onPush = (document) => {
      if (document.key === 'payment:p3') throw new TargetUnavailableError(name, 'socket hang up');
    };
    await runActivity(env, activities().pushToTarget, { target: name, limit: 10 }).catch(() => {});
    expect(sent).toEqual(['payment:p1', 'payment:p2']);
    expect(lookedUp).toEqual([]);
    // p3 was marked before it was written: the target may hold it (the answer was lost), so it is looked up.
    env = quietActivityEnvironment({ activityType: 'pushToTarget', attempt: 2 });
    onPush = () => {};
    const result = await runActivity(env, activities().pushToTarget, { target: name, limit: 10 });
    expect(lookedUp).toEqual(['payment:p3']);
    expect(sent).toEqual(['payment:p1', 'payment:p2', 'payment:p3', 'payment:p4']);
    expect(result.summary).toMatchObject({ pushed: 4, pending: 0 });
  });

  it('an attempt whose lease a later attempt took writes nothing more', async () => {
    const index = new SqliteTargetIndex(world.ledger.database);
    env = quietActivityEnvironment({ activityType: 'pushToTarget' });
    onPush = (document) => {
      // While p2 is written, a later attempt starts (this one timed out, unknown to it) and takes the lease.
      if (document.key === 'payment:p2') void index.lease(name);
    };
    const error = await runActivity(env, activities().pushToTarget, { target: name, limit: 10 }).catch(
      (e) => e,
    );
    expect((error as ApplicationFailure).type).toBe('PushLeaseLostError');
    expect(sent).toEqual(['payment:p1', 'payment:p2']);
    expect(await index.get(name, 'payment:p3')).toBeNull();
  });

  it(`an outage is retried quietly at first, and from attempt ${outageFlaggedAtAttempt} ends the attempt so the workflow flags it`, async () => {
    onPush = () => {
      throw new TargetUnavailableError(name, 'connect ECONNREFUSED');
    };
    for (const attempt of [1, 2, 3, 4]) {
      env = quietActivityEnvironment({ activityType: 'pushToTarget', attempt });
      const error = await runActivity(env, activities().pushToTarget, { target: name, limit: 10 }).catch(
        (e) => e,
      );
      expect(error).toBeInstanceOf(ApplicationFailure);
      expect((error as ApplicationFailure).nonRetryable, `attempt ${attempt}`).toBe(
        attempt >= outageFlaggedAtAttempt,
      );
      expect((error as ApplicationFailure).type).toBe('TargetUnavailableError');
    }
    expect(sent).toEqual([]);
  });

  it('a rate limit with Retry-After is always waited out, never flagged as an outage', async () => {
    onPush = () => {
      throw new TargetUnavailableError(name, 'HTTP 429', 30_000);
    };
    env = quietActivityEnvironment({ activityType: 'pushToTarget', attempt: 7 });
    const error = (await runActivity(env, activities().pushToTarget, { target: name, limit: 10 }).catch(
      (e) => e,
    )) as ApplicationFailure;
    expect(error.nonRetryable).toBe(false);
    expect(error.nextRetryDelay).toBe(30_000);
  });

  it('one refusal given for a whole batch fails no document but its own: the first is pushed alone, the rest wait', async () => {
    const refused = new TargetRefusedError(name, 'the batch request was refused (HTTP 400)');
    const batching: AccountingTarget = {
      ...target,
      batches: true,
      pushMany: async (documents) => documents.map(() => refused),
      async push(document) {
        sent.push(document.key);
        if (document.key === 'payment:p1') throw new TargetRefusedError(name, 'p1: its own refusal');
        return {
          key: document.key,
          remoteIds: [`r-${document.key}`],
          contentHash: document.contentHash,
          created: true,
        };
      },
    };
    const index = new SqliteTargetIndex(world.ledger.database);
    const push = createAccountingTargetActivities({
      ...world.deps,
      targets: {
        targets: new Map([[name, batching]]),
        index,
        references: {} as ReferenceData,
        inFlightWaitMs: 90_000,
      },
    }).pushToTarget;
    env = quietActivityEnvironment({ activityType: 'pushToTarget' });
    const first = await runActivity(env, push, { target: name, limit: 10 });
    expect(first.more).toBe(true);
    expect(first.failed).toEqual([{ key: 'payment:p1', reason: 'p1: its own refusal' }]);
    expect(first.summary).toMatchObject({ failed: 1, pending: 3, pushed: 0 });
    // The next slice: the batch is refused again for all three; the first of them, alone, goes through.
    const second = await runActivity(env, push, { target: name, limit: 10 });
    expect(second.summary).toMatchObject({ failed: 1, pending: 2, pushed: 1 });
    expect(sent).toEqual(['payment:p1', 'payment:p2']);
  });
});
