import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Payload } from '@temporalio/common';
import {
  decodeFromPayloadsAtIndex,
  encodeToPayloads,
  loadDataConverter,
} from '@temporalio/common/lib/internal-non-workflow/index.js';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadSettings } from '../../src/config/settings.js';
import { startBooksync } from '../../src/runtime/booksync-stack.js';
import { temporalTarget } from '../../src/runtime/temporal/temporal-connection.js';
import {
  ENCRYPTION_REQUIRED_WITHOUT_KEYS,
  payloadEncryption,
  payloadEncryptionFrom,
} from '../../src/temporal/data-converter.js';
import { ENCRYPTED_ENCODING, UnencryptedPayloadError } from '../../src/temporal/payload-codec.js';
import { LogCapture } from '../support/stack/log-capture.js';

// PAYLOAD_ENCRYPTION_REQUIRED (a security review found that a process started without PAYLOAD_KEYS wrote plain
// payloads silently, and every reader took a plain payload as booksync's own): there is then no converter that
// writes plaintext (no keys: the process does not start, saying why), and booksync's converter refuses a plain
// payload it is given to read, naming the problem, instead of passing it through. Without the setting, a plain
// payload still reads as it is (histories from before encryption), and a production process says once that
// its payloads are not encrypted.

const keys = `k1=${randomBytes(32).toString('base64')}`;
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString();
/** What a process without the keys writes: Temporal's default converter, no codec. */
const plainWriter = loadDataConverter();

describe('PAYLOAD_ENCRYPTION_REQUIRED', () => {
  it('has no converter without keys: every way booksync starts fails with the message', async () => {
    const settings = loadSettings({ PAYLOAD_ENCRYPTION_REQUIRED: 'true' });
    expect(() => payloadEncryptionFrom(settings)).toThrow(ENCRYPTION_REQUIRED_WITHOUT_KEYS);
    expect(() => payloadEncryption(null, { required: true })).toThrow(
      /PAYLOAD_ENCRYPTION_REQUIRED=true but no payload key is configured \(PAYLOAD_KEYS or PAYLOAD_KEYS_FILE\)/,
    );
    // booksync worker, booksync ingress and every CLI command that talks to Temporal: before connecting.
    expect(() =>
      temporalTarget(
        loadSettings({ PAYLOAD_ENCRYPTION_REQUIRED: 'true', TEMPORAL_ADDRESS: '127.0.0.1:1' }),
        '127.0.0.1:1',
      ),
    ).toThrow(ENCRYPTION_REQUIRED_WITHOUT_KEYS);
    // booksync start: before its Temporal dev server, emulator, worker or ingress start (a unit test may start
    // no process and open no port: it would fail differently if it tried).
    const dataDir = mkdtempSync(path.join(tmpdir(), 'booksync-required-'));
    folders.push(dataDir);
    const logs = new LogCapture();
    await expect(
      startBooksync(
        loadSettings({ PAYLOAD_ENCRYPTION_REQUIRED: 'true', BOOKSYNC_DATA_DIR: dataDir }),
        logs.logger('booksync'),
      ),
    ).rejects.toThrow(ENCRYPTION_REQUIRED_WITHOUT_KEYS);
    expect(readdirSync(dataDir)).toEqual([]);
    expect(existsSync(path.join(dataDir, 'temporal.db'))).toBe(false);
    // With keys it is a converter like any other.
    expect(
      payloadEncryptionFrom(loadSettings({ PAYLOAD_ENCRYPTION_REQUIRED: 'true', PAYLOAD_KEYS: keys })),
    ).not.toBeNull();
  });

  it('never writes a plain payload: what it is given to encode leaves encrypted', async () => {
    const encryption = payloadEncryptionFrom(
      loadSettings({ PAYLOAD_ENCRYPTION_REQUIRED: 'true', PAYLOAD_KEYS: keys }),
    )!;
    const converter = loadDataConverter({ payloadCodecs: encryption.dataConverter.payloadCodecs });
    const written = (await encodeToPayloads(converter, { customer: 'Ada Lovelace' }, null, 'INV-1006'))!;
    expect(written).toHaveLength(3);
    for (const payload of written) {
      expect(text(payload.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
      expect(text(payload.data)).not.toMatch(/Ada|INV-1006|json\/plain|binary\/null/);
    }
    // The codec itself too, given a payload a converter already made.
    const [sealed] = await encryption.codec.encode([
      {
        metadata: { encoding: new TextEncoder().encode('json/plain') },
        data: new TextEncoder().encode('"Ada"'),
      },
    ]);
    expect(text(sealed?.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(await decodeFromPayloadsAtIndex(converter, 0, written)).toEqual({ customer: 'Ada Lovelace' });
  });

  it('refuses to read a plain payload, naming the problem; without the setting it reads as it is', async () => {
    const forged: Payload[] = (await encodeToPayloads(plainWriter, {
      paymentId: 'pay_forged',
      amountInCents: 1,
    }))!;
    const required = payloadEncryptionFrom(
      loadSettings({ PAYLOAD_ENCRYPTION_REQUIRED: 'true', PAYLOAD_KEYS: keys }),
    )!;
    const strict = loadDataConverter({ payloadCodecs: required.dataConverter.payloadCodecs });
    const refused = decodeFromPayloadsAtIndex(strict, 0, forged);
    await expect(refused).rejects.toBeInstanceOf(UnencryptedPayloadError);
    await expect(decodeFromPayloadsAtIndex(strict, 0, forged)).rejects.toThrow(
      /not encrypted \(encoding json\/plain\) was refused: PAYLOAD_ENCRYPTION_REQUIRED=true/,
    );
    // The error names the problem, never the payload.
    await expect(decodeFromPayloadsAtIndex(strict, 0, forged)).rejects.not.toThrow(/pay_forged/);
    // A payload with no encoding at all is refused too.
    await expect(required.codec.decode([{ data: new TextEncoder().encode('x') }])).rejects.toThrow(
      /encoding \(none\)/,
    );

    const lenient = payloadEncryptionFrom(loadSettings({ PAYLOAD_KEYS: keys }))!;
    const reader = loadDataConverter({ payloadCodecs: lenient.dataConverter.payloadCodecs });
    expect(await decodeFromPayloadsAtIndex(reader, 0, forged)).toEqual({
      paymentId: 'pay_forged',
      amountInCents: 1,
    });
  });

  it('a production process without encryption warns once; the embedded demo does not', async () => {
    vi.resetModules();
    const { warnWhenPayloadsUnencrypted } = await import('../../src/temporal/data-converter.js');
    const logs = new LogCapture();
    const logger = logs.logger('booksync', 'info');
    warnWhenPayloadsUnencrypted(loadSettings({}), null, logger);
    expect(logs.lines).toEqual([]);
    warnWhenPayloadsUnencrypted(
      loadSettings({ TEMPORAL_ADDRESS: 'temporal:7233', PAYLOAD_KEYS: keys }),
      payloadEncryption([{ id: 'k', key: randomBytes(32) }]),
      logger,
    );
    expect(logs.lines).toEqual([]);
    const production = loadSettings({ TEMPORAL_ADDRESS: 'temporal:7233' });
    warnWhenPayloadsUnencrypted(production, null, logger);
    warnWhenPayloadsUnencrypted(production, null, logger);
    expect(logs.lines).toHaveLength(1);
    expect(JSON.parse(logs.lines[0]!.slice('booksync '.length))).toMatchObject({
      level: 40,
      msg: expect.stringMatching(
        /^payloads are not encrypted: .*PAYLOAD_KEYS.*PAYLOAD_ENCRYPTION_REQUIRED=true/,
      ),
    });
  });
});
