import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedDemo } from '@booksync/emulator/seed';
import { createEmulator, type Emulator } from '@booksync/emulator/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// schemathesis (PyPI, installed by scripts/schemathesis.sh into ~/.cache/booksync/schemathesis) generates
// requests from docs/openapi.json, valid and invalid, against the emulator on loopback with a seeded key:
// no answer may be a 5xx, and every answer must match the document's response schemas.

const root = fileURLToPath(new URL('../..', import.meta.url));
const maxExamples = process.env.SCHEMATHESIS_MAX_EXAMPLES ?? '20';

function run(command: string, args: string[], timeoutMs: number) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout?.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr?.on('data', (c: Buffer) => {
      output += c.toString();
    });
    const timer = setTimeout(() => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {}
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('schemathesis against the emulator', () => {
  let emulator: Emulator;
  let url: string;
  let apiKey: string;

  beforeAll(async () => {
    const install = await run(
      'bash',
      [path.join(root, 'scripts/schemathesis.sh'), '--install-only'],
      600_000,
    );
    expect(install.code, install.output).toBe(0);
    emulator = createEmulator({ dbPath: ':memory:', adminToken: 'schemathesis-admin-token' });
    apiKey = seedDemo(emulator.store).apiKey;
    url = await emulator.app.listen({ host: '127.0.0.1', port: 0 });
  }, 660_000);
  afterAll(async () => {
    await emulator?.app.close();
  });

  it(`finds no server error and no response outside the OpenAPI document (${maxExamples} examples per operation)`, async () => {
    const started = Date.now();
    const result = await run(
      'bash',
      [path.join(root, 'scripts/schemathesis.sh'), url, apiKey, maxExamples],
      600_000,
    );
    // schemathesis closes with a pytest-style banner ("=== 2 warnings in 6s ==="), which CI would read as
    // a test runner that ran no test: its report goes to a file, and only a plain line to the console.
    const artifacts = path.join(root, 'test/.artifacts');
    mkdirSync(artifacts, { recursive: true });
    writeFileSync(path.join(artifacts, 'schemathesis.log'), result.output);
    console.info(
      `[schemathesis] exit ${result.code} after ${Math.round((Date.now() - started) / 1000)} s; report in test/.artifacts/schemathesis.log`,
    );
    expect(result.code, result.output.slice(-6_000)).toBe(0);
    // It really exercised the API (not an empty run against a wrong URL).
    expect(result.output).toMatch(/passed|Passed|PASSED/);
  }, 660_000);
});
