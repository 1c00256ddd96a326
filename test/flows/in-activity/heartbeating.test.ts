import { setTimeout as sleep } from 'node:timers/promises';
import { CancelledFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { beatEveryMs, heartbeating, pause } from '../../../src/flows/in-activity/heartbeating.js';
import { quietActivityEnvironment } from '../fakes.js';

// A backfill activity beats while it works, so a worker lost mid-attempt is noticed within its heartbeat
// timeout; its paced waits end when the attempt is cancelled.

describe('heartbeating', () => {
  it('beats every third of the heartbeat timeout while the work runs, and stops after', async () => {
    const env = quietActivityEnvironment({ heartbeatTimeoutMs: 300 });
    const beats: number[] = [];
    env.on('heartbeat', () => beats.push(Date.now()));
    const result = await env.run(() => heartbeating(() => sleep(550).then(() => 'done')));
    expect(result).toBe('done');
    expect(beats.length).toBeGreaterThanOrEqual(3);
    const after = beats.length;
    await sleep(250);
    expect(beats.length).toBe(after);
  });

  it('does not beat for an activity scheduled without a heartbeat timeout, nor outside an activity', async () => {
    const env = quietActivityEnvironment({ heartbeatTimeoutMs: undefined });
    let beats = 0;
    env.on('heartbeat', () => beats++);
    await env.run(() => heartbeating(() => sleep(250)));
    expect(beats).toBe(0);
    expect(await heartbeating(async () => 42)).toBe(42);
  });

  it('beats at most every 10 s, at least every 100 ms', () => {
    expect([beatEveryMs(30_000), beatEveryMs(60_000), beatEveryMs(150), beatEveryMs(undefined)]).toEqual([
      10_000, 10_000, 100, 10_000,
    ]);
  });
});

describe('pause', () => {
  it('waits the time asked outside a cancellation', async () => {
    const env = quietActivityEnvironment({ heartbeatTimeoutMs: 30_000 });
    const started = Date.now();
    await env.run(() => pause(120));
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });

  it('ends at once when the attempt is cancelled (a worker shutting down), not when its wait is over', async () => {
    const env = quietActivityEnvironment({ heartbeatTimeoutMs: 30_000 });
    const started = Date.now();
    const paused = env.run(() => pause(60_000));
    setTimeout(() => env.cancel('WORKER_SHUTDOWN'), 50);
    await expect(paused).rejects.toBeInstanceOf(CancelledFailure);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
