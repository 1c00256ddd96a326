import { randomBytes } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import {
  ENCRYPTED_ENCODING,
  EncryptionCodec,
  encryptionKeyIds,
  KEY_ID_METADATA,
  PayloadKeyError,
  parsePayloadKeys,
} from '../../src/temporal/payload-codec.js';

const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString();
const json = (value: unknown): Payload => ({
  metadata: { encoding: new TextEncoder().encode('json/plain') },
  data: new TextEncoder().encode(JSON.stringify(value)),
});
const k = (id: string) => ({ id, key: randomBytes(32) });

describe('the payload codec (AES-256-GCM)', () => {
  it('encrypts the whole payload, metadata included, and decrypts it back', async () => {
    const codec = new EncryptionCodec([k('a')]);
    const [sealed] = await codec.encode([json({ customer: 'Ada Lovelace' })]);
    expect(text(sealed?.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(sealed?.metadata?.[KEY_ID_METADATA])).toBe('a');
    expect(text(sealed?.data)).not.toContain('Ada');
    expect(text(sealed?.data)).not.toContain('json/plain');
    const [plain] = await codec.decode([sealed!]);
    expect(JSON.parse(text(plain?.data))).toEqual({ customer: 'Ada Lovelace' });
    expect(text(plain?.metadata?.encoding)).toBe('json/plain');
    // A fresh IV each time: the same value never gives the same ciphertext.
    const [again] = await codec.encode([json({ customer: 'Ada Lovelace' })]);
    expect(text(again?.data)).not.toBe(text(sealed?.data));
  });

  it('rotates: the first key encrypts, every key decrypts; a missing key is named', async () => {
    const old = k('old');
    const fresh = k('new');
    const [byOld] = await new EncryptionCodec([old]).encode([json(1)]);
    const rotated = new EncryptionCodec([fresh, old]);
    expect(rotated.currentKeyId).toBe('new');
    expect(JSON.parse(text((await rotated.decode([byOld!]))[0]?.data))).toBe(1);
    expect(encryptionKeyIds([byOld!, json(2)])).toEqual(['old']);
    await expect(new EncryptionCodec([fresh]).decode([byOld!])).rejects.toThrow(
      /encrypted with key old, which PAYLOAD_KEYS does not list/,
    );
  });

  it('reads payloads written before encryption as they are, and refuses a tampered one', async () => {
    const codec = new EncryptionCodec([k('a')]);
    const plain = json({ before: true });
    expect(await codec.decode([plain])).toEqual([plain]);
    const [sealed] = await codec.encode([json('x')]);
    const data = Buffer.from(sealed!.data!);
    data[20] = (data[20] ?? 0) ^ 1;
    await expect(codec.decode([{ ...sealed!, data: new Uint8Array(data) }])).rejects.toThrow();
  });

  it('parses keys with one line per problem, never echoing a key', () => {
    const good = randomBytes(32).toString('base64');
    expect(parsePayloadKeys(`new=${good},old=${good}`, 'PAYLOAD_KEYS').map((p) => p.id)).toEqual([
      'new',
      'old',
    ]);
    expect(parsePayloadKeys(`# rotation\nnew=${good}\n`, 'PAYLOAD_KEYS_FILE').map((p) => p.id)).toEqual([
      'new',
    ]);
    const short = randomBytes(16).toString('base64');
    expect(() => parsePayloadKeys(`a=${short}`, 'PAYLOAD_KEYS')).toThrow(
      'PAYLOAD_KEYS: key a is 16 bytes, not 32 (AES-256)',
    );
    expect(() => parsePayloadKeys(good, 'PAYLOAD_KEYS')).toThrow(PayloadKeyError);
    expect(() => parsePayloadKeys(`a=${good},a=${good}`, 'PAYLOAD_KEYS')).toThrow(/appears twice/);
    try {
      parsePayloadKeys(`a=${short}`, 'PAYLOAD_KEYS');
    } catch (error) {
      expect(String(error)).not.toContain(short);
    }
  });
});
