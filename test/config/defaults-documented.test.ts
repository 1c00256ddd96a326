import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configurationPage } from '../../src/cli/config-reference.js';
import { dataDirDefaults, loadSettings, settingsSchema } from '../../src/config/settings.js';
import { quickBooksSettings } from '../../src/runtime/targets/quickbooks-connection.js';
import { xeroSettings } from '../../src/runtime/targets/xero-connection.js';

// The configuration reference once said QBO_TOKEN_FILE defaults to BOOKSYNC_DATA_DIR/quickbooks-token, while the
// code used quickbooks-connection.json. Every default now has one source: the schema's .default(), or for a file
// in the data folder dataDirDefaults, which both the code and the generated table read. These tests compare
// what the docs state with what the code does: the table in docs/configuration.md, and the prose of the README
// and of every page under docs/.

const table = readFileSync(configurationPage, 'utf8');
const pages = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? pages(path.join(folder, entry.name))
      : entry.name.endsWith('.md')
        ? [path.join(folder, entry.name)]
        : [],
  );
const prose = ['README.md', ...pages('docs')].map((file) => readFileSync(file, 'utf8')).join('\n');

/** The configuration table's row of a setting: its default column and its meaning. */
function documented(name: string): { fallback: string; meaning: string } {
  const row = table.split('\n').find((line) => line.startsWith(`| \`${name}\` |`));
  if (!row) throw new Error(`no row in ${configurationPage} for ${name}`);
  const [, fallback = '', meaning = ''] = row.split(' | ').map((cell) => cell.trim());
  return { fallback, meaning };
}

/** The data file the table states as the default: in the default column, or in the text. */
function documentedFile(name: string): string | undefined {
  const { fallback, meaning } = documented(name);
  return /BOOKSYNC_DATA_DIR\/([\w.-]+)/.exec(`${fallback} ${meaning}`)?.[1];
}

describe('defaults: what the docs state is what the code does', () => {
  const dir = '/srv/booksync-data';
  const settings = loadSettings({
    BOOKSYNC_DATA_DIR: dir,
    QBO_CLIENT_ID: 'id',
    QBO_CLIENT_SECRET: 'secret',
    QBO_TOKEN_KEY: 'a-token-key-of-16-chars',
    XERO_CLIENT_ID: 'id',
    XERO_CLIENT_SECRET: 'secret',
    XERO_TOKEN_KEY: 'a-token-key-of-16-chars',
  });

  it.each([
    ['QBO_TOKEN_FILE', () => quickBooksSettings(settings).file.file],
    ['XERO_TOKEN_FILE', () => xeroSettings(settings).file.file],
    ['LEDGER_DB', () => settings.ledgerDb],
  ])('%s: the file the table names is the one used', (name, used) => {
    expect(path.join(dir, documentedFile(name) ?? '(none documented)')).toBe(used());
  });

  it('every data file default is in the table’s default column', () => {
    for (const [name, file] of Object.entries(dataDirDefaults))
      expect(documented(name).fallback, name).toBe(`\`BOOKSYNC_DATA_DIR/${file}\``);
  });

  it('every fixed default is the schema’s, and no meaning restates a default of its own', () => {
    for (const [name, schema] of Object.entries(settingsSchema.shape)) {
      const json = z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' }) as {
        default?: unknown;
      };
      if (json.default !== undefined)
        expect(documented(name).fallback, name).toBe(`\`${String(json.default)}\``);
      expect((schema as z.ZodType).description ?? '', name).not.toMatch(/\bdefault:|\(default /i);
    }
  });

  it('the prose of the README and docs/ names the same defaults as the schema', () => {
    const shape = settingsSchema.shape as Record<string, z.ZodType>;
    const claims = [
      ...prose.matchAll(/`([A-Z][A-Z0-9_]+)` \(default `([^`]+)`/g),
      ...prose.matchAll(/`([A-Z][A-Z0-9_]+)=([^`]+)`, the default/g),
    ];
    expect(claims.length).toBeGreaterThan(2);
    for (const [, name, value] of claims) {
      const schema = shape[name as string];
      expect(schema, `${name} is a setting`).toBeDefined();
      const json = z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' }) as {
        default?: unknown;
      };
      expect(String(json.default), name).toBe(value);
    }
  });
});
