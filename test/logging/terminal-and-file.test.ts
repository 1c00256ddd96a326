import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTerminalAndFileLogger, rotateLogFile } from '../../src/logging/logger.js';

// `booksync start` at a terminal: the whole log to a rotated file, only warnings and errors
// on the screen, readable (not JSON), secrets redacted in both.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'booksync-logs-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the terminal-and-file logger', () => {
  it('writes everything at its level to the file and only warnings and errors to the terminal', () => {
    const terminal = new PassThrough();
    let screen = '';
    terminal.on('data', (chunk) => {
      screen += chunk.toString();
    });
    const file = path.join(dir, 'logs', 'booksync.log');
    const logger = createTerminalAndFileLogger({ level: 'info', file, name: 'booksync', terminal });
    logger.info({ eventId: 'evt_1' }, 'request completed');
    logger.debug('not at this level');
    logger.warn({ apiKey: 'sk_live_secret' }, 'accounting target not reachable at start');
    logger.error('the ledger is busy');
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.msg)).toEqual([
      'request completed',
      'accounting target not reachable at start',
      'the ledger is busy',
    ]);
    expect(lines[1].apiKey).toBe('[redacted]');
    expect(screen).toContain('accounting target not reachable at start');
    expect(screen).toContain('the ledger is busy');
    expect(screen).not.toContain('request completed');
    expect(screen).not.toContain('sk_live_secret');
    expect(screen.trim().startsWith('{')).toBe(false);
  });

  it('rotates a log file that reached its size, keeping three', () => {
    const file = path.join(dir, 'booksync.log');
    for (let round = 1; round <= 4; round++) {
      writeFileSync(file, `round ${round}\n`.padEnd(64, '.'));
      rotateLogFile(file, 32);
    }
    expect(readFileSync(`${file}.1`, 'utf8')).toMatch(/^round 4/);
    expect(readFileSync(`${file}.3`, 'utf8')).toMatch(/^round 2/);
    expect(() => readFileSync(`${file}.4`)).toThrow();
    // Under the size: left as it is.
    writeFileSync(file, 'small');
    rotateLogFile(file, 32);
    expect(readFileSync(file, 'utf8')).toBe('small');
  });
});
