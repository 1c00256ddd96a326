import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectTarget } from '../../src/cli/commands/targets-connect.js';
import { loadSettings } from '../../src/config/settings.js';
import { silentLogger } from '../../src/logging/logger.js';
import { freePort } from '../support/free-port.js';

// `booksync targets connect` says "Waiting for ... to redirect to <address>" only once that address listens:
// before, the line came before the listener was bound, and a redirect that followed it at once (a browser
// already signed in, a script, the combination suite under load) was refused (ECONNREFUSED).

const dir = mkdtempSync(path.join(tmpdir(), 'booksync-connect-listening-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether something accepts a TCP connection on the port right now (synchronously: nothing else runs meanwhile). */
function accepts(port: number): boolean {
  try {
    execFileSync('bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${port}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('booksync targets connect, the loopback listener', () => {
  for (const target of ['quickbooks', 'xero'] as const) {
    it(`${target}: the redirect address accepts connections when the "Waiting for" line is printed`, async () => {
      const port = await freePort();
      const settings = loadSettings({
        BOOKSYNC_DATA_DIR: dir,
        QBO_CLIENT_ID: 'client',
        QBO_CLIENT_SECRET: 'secret',
        QBO_TOKEN_KEY: 'connect-listening-key-0123456789',
        QBO_REDIRECT_URI: `http://127.0.0.1:${port}/quickbooks/callback`,
        XERO_CLIENT_ID: 'client',
        XERO_CLIENT_SECRET: 'secret',
        XERO_TOKEN_KEY: 'connect-listening-key-0123456789',
        XERO_REDIRECT_URI: `http://127.0.0.1:${port}/xero/callback`,
      });
      const seen: { line: string; listening: boolean }[] = [];
      const outcome = await connectTarget({
        args: [target, '--timeout', '1'],
        settings,
        logger: silentLogger,
        out: (line) => {
          if (line.startsWith('Waiting for')) seen.push({ line, listening: accepts(port) });
        },
      }).catch((error: Error) => error);
      expect(seen).toEqual([{ line: expect.stringContaining(`127.0.0.1:${port}`), listening: true }]);
      // Nobody answered: the command gives up after its timeout.
      expect(String(outcome)).toContain('no answer');
    });
  }
});
