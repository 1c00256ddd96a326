import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packageVersion, parseCacheDir, parsedFile } from '../src/parse-cache.js';

// A contract's parse kept as JSON: the file is read every time, the parser runs only for bytes, parser and
// options it has not seen.

let dir: string;
let cache: string;
let previous: string | undefined;
let calls = 0;
const parse = (text: string) => {
  calls++;
  return { lines: text.split('\n'), length: text.length };
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'parse-cache-'));
  cache = join(dir, 'cache');
  previous = process.env.VENDOR_DOUBLES_PARSE_CACHE;
  process.env.VENDOR_DOUBLES_PARSE_CACHE = cache;
  calls = 0;
});

afterEach(() => {
  if (previous === undefined) delete process.env.VENDOR_DOUBLES_PARSE_CACHE;
  else process.env.VENDOR_DOUBLES_PARSE_CACHE = previous;
  rmSync(dir, { recursive: true, force: true });
});

describe('parsedFile', () => {
  it('parses a file once: the next read gives the same value without the parser', () => {
    const file = join(dir, 'contract.txt');
    writeFileSync(file, 'a\nb');
    const first = parsedFile(file, 'lines v1', parse);
    const second = parsedFile(file, 'lines v1', parse);
    expect(second).toEqual({ lines: ['a', 'b'], length: 3 });
    expect(second).toEqual(first);
    expect(calls).toBe(1);
    expect(readdirSync(cache).filter((f) => f.endsWith('.json'))).toHaveLength(1);
  });

  it('parses again when the file changes or the recipe does', () => {
    const file = join(dir, 'contract.txt');
    writeFileSync(file, 'a');
    parsedFile(file, 'lines v1', parse);
    writeFileSync(file, 'a\nc');
    expect(parsedFile(file, 'lines v1', parse)).toEqual({ lines: ['a', 'c'], length: 3 });
    expect(calls).toBe(2);
    expect(parsedFile(file, 'lines v2', parse)).toEqual({ lines: ['a', 'c'], length: 3 });
    expect(calls).toBe(3);
  });

  it('parses again over a cache file it cannot read, and mends it', () => {
    const file = join(dir, 'contract.txt');
    writeFileSync(file, 'x');
    parsedFile(file, 'lines v1', parse);
    const [kept] = readdirSync(cache);
    writeFileSync(join(cache, kept as string), '{"lines": [');
    expect(parsedFile(file, 'lines v1', parse)).toEqual({ lines: ['x'], length: 1 });
    expect(parsedFile(file, 'lines v1', parse)).toEqual({ lines: ['x'], length: 1 });
    expect(calls).toBe(2);
  });

  it('still answers when the cache folder cannot be written', () => {
    const file = join(dir, 'contract.txt');
    writeFileSync(file, 'y');
    // A file where the folder should be: no folder can be made there, not even by root.
    writeFileSync(cache, 'not a folder');
    expect(parsedFile(file, 'lines v1', parse)).toEqual({ lines: ['y'], length: 1 });
    expect(parsedFile(file, 'lines v1', parse)).toEqual({ lines: ['y'], length: 1 });
    expect(calls).toBe(2);
  });

  it('fails loudly on a file that is not there', () => {
    expect(() => parsedFile(join(dir, 'missing.txt'), 'lines v1', parse)).toThrow(/ENOENT/);
  });
});

describe('where and what', () => {
  it('keeps the cache under node_modules/.cache unless VENDOR_DOUBLES_PARSE_CACHE says where', () => {
    expect(parseCacheDir({})).toMatch(/node_modules\/\.cache\/vendor-doubles$/);
    expect(parseCacheDir({ VENDOR_DOUBLES_PARSE_CACHE: '/somewhere' })).toBe('/somewhere');
  });

  it('names a parser by its installed version', () => {
    expect(packageVersion('yaml')).toMatch(/^yaml@\d+\.\d+\.\d+$/);
    expect(packageVersion('fast-xml-parser')).toMatch(/^fast-xml-parser@\d+\.\d+\.\d+$/);
  });
});
