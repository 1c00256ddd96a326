import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// bin/booksync.js runs the TypeScript sources on Node's own type stripping, or through tsx where asked (and
// where Node has no stripping): both must run the same command line.

const run = promisify(execFile);
const bin = path.resolve('bin/booksync.js');

async function help(loader: 'native' | 'tsx'): Promise<string> {
  const env = { ...process.env, BOOKSYNC_TYPESCRIPT_LOADER: loader === 'tsx' ? 'tsx' : '' };
  const { stdout, stderr } = await run(process.execPath, [bin, '--help'], { env });
  // No warning of an experimental feature, nor anything else, beside the usage.
  expect(stderr).toBe('');
  return stdout;
}

describe('the TypeScript loader of bin/booksync.js', () => {
  it("runs on Node's type stripping and through tsx alike", async () => {
    expect(process.features.typescript, 'this Node strips types').toBeTruthy();
    const [native, tsx] = await Promise.all([help('native'), help('tsx')]);
    expect(native).toMatch(/^usage: booksync <command>/m);
    expect(native).toBe(tsx);
  });
});
