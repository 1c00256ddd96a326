import { randomBytes } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { EncryptionCodec } from '../../src/temporal/payload-codec.js';
import { keyIdsOfEvent } from '../../src/temporal/payload-key-usage.js';

// Where `booksync temporal payload-keys` finds a key id in a history event: every payload the event holds,
// wherever its attributes keep it (an input, a marker's details, a memo, a failure's encoded attributes and
// its cause's), read from the payload's metadata only, as the server sends it (protobuf messages).

const { temporal } = proto;
const HistoryEvent = temporal.api.history.v1.HistoryEvent;
const plain = (value: unknown): Payload => ({
  metadata: { encoding: new TextEncoder().encode('json/plain') },
  data: new TextEncoder().encode(JSON.stringify(value)),
});
const sealed = async (id: string, value: unknown) =>
  (await new EncryptionCodec([{ id, key: randomBytes(32) }]).encode([plain(value)]))[0] as Payload;

/** An event as it arrives from the server: encoded, then decoded. */
const fromServer = (event: Record<string, unknown>) =>
  HistoryEvent.decode(HistoryEvent.encode(HistoryEvent.fromObject(event)).finish());

describe('the key ids of a history event (payload-keys)', () => {
  it('finds them in inputs, memos, markers and nested failures, and not in plain payloads', async () => {
    const started = fromServer({
      eventId: 1,
      workflowExecutionStartedEventAttributes: {
        input: { payloads: [await sealed('2026-10', { paymentId: 'pay_1' }), plain('patch')] },
        memo: { fields: { note: await sealed('2026-09', 'memo') } },
      },
    });
    expect([...keyIdsOfEvent(started)].sort()).toEqual(['2026-09', '2026-10']);

    const marker = fromServer({
      eventId: 2,
      markerRecordedEventAttributes: {
        markerName: 'core_patch',
        details: { patch: { payloads: [plain('x')] } },
      },
    });
    expect(keyIdsOfEvent(marker).size).toBe(0);

    const failed = fromServer({
      eventId: 3,
      activityTaskFailedEventAttributes: {
        failure: {
          message: 'Encoded failure',
          encodedAttributes: await sealed('2026-11', { message: 'refused' }),
          cause: {
            message: 'Encoded failure',
            encodedAttributes: await sealed('2026-08', { message: 'root' }),
          },
        },
      },
    });
    expect([...keyIdsOfEvent(failed)].sort()).toEqual(['2026-08', '2026-11']);
  });
});
