import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { EncryptionCodec, type PayloadKey } from './payload-codec.js';

// How booksync's Temporal clients and workers encode payloads: as they are, or, with PAYLOAD_KEYS, encrypted
// by the codec with failures' messages and stacks encoded too. Every client and worker booksync runs takes
// its converter from here, so they all read what the others write.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The failure converter module a worker loads by path (in the workflow sandbox too) when encryption is on. */
export const encodedFailureConverterPath = path.join(
  root,
  'src',
  'workflow-safe',
  'encoded-failure-converter.ts',
);

export interface PayloadEncryption {
  codec: EncryptionCodec;
  /**
   * For clients (Schedules included, which a client creates) and workers: the codec, and the failure
   * converter by path (a worker's workflow bundle is built with it).
   */
  dataConverter: DataConverter & { payloadCodecs: EncryptionCodec[]; failureConverterPath: string };
}

/** The converters for these keys; null when no key is configured (payloads go as they are). */
export function payloadEncryption(keys: readonly PayloadKey[] | null): PayloadEncryption | null {
  if (!keys) return null;
  const codec = new EncryptionCodec(keys);
  return {
    codec,
    dataConverter: { payloadCodecs: [codec], failureConverterPath: encodedFailureConverterPath },
  };
}
