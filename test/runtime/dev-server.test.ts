import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logging/logger.js';
import { startDevServer } from '../../src/runtime/temporal/dev-server.js';
import { freePort } from '../support/free-port.js';
import { waitFor } from '../support/wait-for.js';

// booksync's own Temporal dev server (`booksync start` without TEMPORAL_ADDRESS). Two ways it went wrong:
// a port already held made the server exit at once while booksync went on talking to whatever held it; and a
// booksync killed by SIGKILL (no exit hook runs) left its server running on the port, in a process group
// of its own, for the next start to trip over.

const folder = mkdtempSync(path.join(tmpdir(), 'booksync-dev-server-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

async function answers(address: string): Promise<boolean> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: 1_000 });
    try {
      await connection.workflowService.getSystemInfo({});
      return true;
    } finally {
      await connection.close();
    }
  } catch {
    return false;
  }
}

describe("booksync's Temporal dev server", () => {
  it('refuses to start on a port something already listens on, naming the port and the settings', async () => {
    const port = await freePort();
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      const started = Date.now();
      await expect(
        startDevServer({
          port,
          uiPort: await freePort(),
          dbFile: path.join(folder, 'taken.db'),
          namespace: 'default',
          logger: silentLogger,
        }),
      ).rejects.toThrow(
        new RegExp(`port ${port} on 127.0.0.1 is in use.*TEMPORAL_DEV_PORT.*TEMPORAL_ADDRESS`),
      );
      // Refused before anything was spawned: no 60-second wait for a server that cannot bind.
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it.runIf(process.platform === 'linux')(
    'goes down with a booksync killed by SIGKILL, so the port is free for the next start',
    async () => {
      const port = await freePort();
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          path.join(import.meta.dirname, 'fixtures', 'start-dev-server.ts'),
          String(port),
          String(await freePort()),
          path.join(folder, 'killed.db'),
        ],
        { stdio: ['ignore', 'pipe', 'inherit'], env: process.env },
      );
      children.push(child);
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      await waitFor('the dev server to serve', async () => out.includes('serving'), 90_000);
      const address = `127.0.0.1:${port}`;
      expect(await answers(address)).toBe(true);
      child.kill('SIGKILL');
      // With --pdeathsig the kernel kills it at once. Without, it lived on until it happened to write a log
      // line to the dead parent's pipe (SIGPIPE): seconds, or never at log level warn.
      await waitFor('the server to go down', async () => !(await answers(address)), 20_000);
      // The next start gets the port.
      const next = await startDevServer({
        port,
        uiPort: await freePort(),
        dbFile: path.join(folder, 'next.db'),
        namespace: 'default',
        logger: silentLogger,
      });
      try {
        expect(await answers(next.address)).toBe(true);
      } finally {
        await next.stop();
      }
    },
    150_000,
  );
});
