import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type PayloadEncryption, payloadEncryption } from '../src/temporal/data-converter.js';
import { parsePayloadKeys } from '../src/temporal/payload-codec.js';

// Encryption and tracing on, for the ingress and end-to-end stages' "on" runs: a fresh payload key
// as PAYLOAD_KEYS, and OTLP/HTTP export to a sink on loopback that takes every batch and answers 200, as a
// collector would (the cost measured is booksync's: spans made, batched, serialised and sent). Off is the
// stages' usual run: no PAYLOAD_KEYS, no OTEL_* variables.

export interface SecureSetup {
  /** For booksync's child processes (ingress, worker): PAYLOAD_KEYS and the OTEL_* variables. */
  env: Record<string, string>;
  /** For the clients and workers the bench runs in its own process (the emulator's deliveries). */
  encryption: PayloadEncryption;
  /** Trace export requests the sink took, to show tracing was really on. */
  exports(): number;
  close(): Promise<void>;
}

/** The goals of encryption and tracing: with both on, ingress acks/s at least 0.9× and end-to-end p99 at most 1.1× of off. */
export const secureGoals = { ingressAcksRatioAtLeast: 0.9, endToEndP99RatioAtMost: 1.1 };

export async function startSecureSetup(): Promise<SecureSetup> {
  const keys = `bench=${randomBytes(32).toString('base64')}`;
  let requests = 0;
  const sink = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url === '/v1/traces') requests++;
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const { port } = sink.address() as AddressInfo;
  return {
    env: {
      PAYLOAD_KEYS: keys,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_SERVICE_NAME: 'booksync-bench',
    },
    encryption: payloadEncryption(parsePayloadKeys(keys, 'PAYLOAD_KEYS'))!,
    exports: () => requests,
    close: () => new Promise((resolve) => sink.close(() => resolve())),
  };
}

/** on / off, rounded to 3 places. */
export function ratio(on: number, off: number): number {
  return Math.round((on / off) * 1000) / 1000;
}
