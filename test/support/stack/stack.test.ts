import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { closer } from './closer.js';
import { startStack } from './stack.js';

// The composer's promises, on parts that need no Temporal: what it started it closes, last first, also
// when a later part fails to start; a step that fails to close does not keep the others open.

/** A Temporal nobody talks to: the emulator without Temporal dispatch and the ledger never call it. */
const noTemporal = { client: {}, namespace: 'default' } as unknown as TestWorkflowEnvironment;

describe('the composed test stack', () => {
  it('closes last first, goes on past a step that fails, then throws that failure', async () => {
    const order: string[] = [];
    const closing = closer();
    closing.push(() => order.push('first'));
    closing.push(() => {
      order.push('second');
      throw new Error('second failed');
    });
    closing.push(() => order.push('third'));
    await expect(closing.close()).rejects.toThrow('second failed');
    expect(order).toEqual(['third', 'second', 'first']);
  });

  it('stops the emulator and removes its folder on close', async () => {
    const stack = await startStack({
      name: 'stack-test',
      temporal: noTemporal,
      emulator: { adminToken: 'stack-test-admin', dispatch: 'none', onDisk: true },
    });
    const { serviceUrl, sandbox } = stack.emulator!;
    expect((await sandbox.clock()).now).toMatch(/^\d{4}-/);
    expect(existsSync(path.join(stack.dir, 'emulator.db'))).toBe(true);
    await stack.close();
    await expect(fetch(`${serviceUrl}/sandbox/clock`)).rejects.toThrow();
    expect(existsSync(stack.dir)).toBe(false);
  });

  it('closes the parts it started when a later part fails to start', async () => {
    const name = `stack-fails-${process.pid}`;
    const started = startStack({
      name,
      temporal: noTemporal,
      emulator: { adminToken: 'stack-test-admin', dispatch: 'none', onDisk: true },
      // A ledger under a file cannot be opened: the worker fails after the emulator started.
      ledger: { path: '/etc/hostname/books.db' },
      worker: { run: 'in-process', bundle: { codePath: '/nowhere' } },
    });
    await expect(started).rejects.toThrow();
    expect(readdirSync(tmpdir()).filter((d) => d.startsWith(`booksync-${name}-`))).toEqual([]);
  });
});
