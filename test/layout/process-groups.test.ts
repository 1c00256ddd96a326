import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  endRecordedProcessGroups,
  openProcessGroupRegistry,
  processGroupsVariable,
  recordProcessGroup,
} from '../support/process-groups.js';

// test tier: integration
// The run's global teardown ends the process groups a test server left behind (a Tryton scheduler's forked
// child outlives its parent's death signal; a file whose hooks timed out never closes its server).

const saved = process.env[processGroupsVariable];
afterEach(() => {
  process.env[processGroupsVariable] = saved;
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('process groups test servers leave behind', () => {
  it('are ended at the end of the run, a forked child of the group too, and the lists removed', async () => {
    const folder = openProcessGroupRegistry();
    // A leader that forks a child and is then gone, as a scheduler's task outlives the scheduler.
    const leader = spawn('sh', ['-c', 'sleep 300 & echo $!; wait'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const child = Number(
      await new Promise<string>((resolve) =>
        leader.stdout?.once('data', (d: Buffer) => resolve(d.toString())),
      ),
    );
    recordProcessGroup(leader.pid as number);
    expect(alive(child)).toBe(true);
    const ended = endRecordedProcessGroups(folder);
    expect(ended).toEqual([leader.pid]);
    for (let i = 0; i < 50 && alive(child); i++) await sleep(100);
    expect(alive(child)).toBe(false);
    expect(existsSync(folder)).toBe(false);
  });

  it('says nothing of groups already gone, and records nothing outside a run with the registry', async () => {
    const folder = openProcessGroupRegistry();
    const done = spawn('true', [], { detached: true });
    await new Promise((resolve) => done.once('exit', resolve));
    recordProcessGroup(done.pid as number);
    expect(endRecordedProcessGroups(folder)).toEqual([]);
    delete process.env[processGroupsVariable];
    expect(() => recordProcessGroup(12345)).not.toThrow();
  });
});
