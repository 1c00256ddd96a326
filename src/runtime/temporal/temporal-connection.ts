import { readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { Settings } from '../../config/settings.js';
import { activeTracing } from '../../telemetry/tracing.js';
import { type PayloadEncryption, payloadEncryptionFrom } from '../../temporal/data-converter.js';

export interface TemporalTarget {
  address: string;
  namespace: string;
  tls?: { clientCertPair?: { crt: Buffer; key: Buffer } } | boolean;
  apiKey?: string;
  /**
   * PAYLOAD_KEYS / PAYLOAD_KEYS_FILE: payloads encrypted by every client and worker; null: as they are (never
   * with PAYLOAD_ENCRYPTION_REQUIRED: temporalTarget throws then, before anything connects).
   */
  encryption: PayloadEncryption | null;
}

export function temporalTarget(settings: Settings, address: string): TemporalTarget {
  const mtls =
    settings.TEMPORAL_TLS_CERT_PATH && settings.TEMPORAL_TLS_KEY_PATH
      ? {
          clientCertPair: {
            crt: readFileSync(settings.TEMPORAL_TLS_CERT_PATH),
            key: readFileSync(settings.TEMPORAL_TLS_KEY_PATH),
          },
        }
      : undefined;
  return {
    address,
    namespace: settings.TEMPORAL_NAMESPACE,
    encryption: payloadEncryptionFrom(settings),
    ...(mtls ? { tls: mtls } : settings.TEMPORAL_TLS || settings.TEMPORAL_API_KEY ? { tls: true } : {}),
    ...(settings.TEMPORAL_API_KEY ? { apiKey: settings.TEMPORAL_API_KEY } : {}),
  };
}

/** Temporal could not be reached: one line naming the setting, instead of the transport's own words. */
export class TemporalUnreachableError extends Error {
  override name = 'TemporalUnreachableError';
  constructor(address: string, cause: unknown) {
    const text = cause instanceof Error ? cause.message : String(cause);
    const reason =
      /message: "([^"]+)"/.exec(text)?.[1] ??
      /(Connection refused|timed? ?out|dns error[^,)]*)/i.exec(text)?.[1] ??
      text;
    super(`TEMPORAL_ADDRESS: cannot reach Temporal at ${address} (${reason})`, { cause });
  }
}

async function reaching<T>(address: string, connect: () => Promise<T>): Promise<T> {
  try {
    return await connect();
  } catch (error) {
    throw new TemporalUnreachableError(address, error);
  }
}

/** A client connection that fails fast with a clear message when Temporal is unreachable. */
export async function connectClient(
  target: TemporalTarget,
): Promise<{ client: Client; connection: Connection }> {
  const connection = await reaching(target.address, () =>
    Connection.connect({
      address: target.address,
      connectTimeout: 5_000,
      ...(target.tls !== undefined ? { tls: target.tls } : {}),
      ...(target.apiKey ? { apiKey: target.apiKey } : {}),
    }),
  );
  // With tracing on (OTEL_*), each call (signalWithStart, start, signal...) is a span whose context travels
  // in the call's headers to the workflow.
  const tracing = activeTracing();
  return {
    client: new Client({
      connection,
      namespace: target.namespace,
      ...(target.encryption ? { dataConverter: target.encryption.dataConverter } : {}),
      ...(tracing ? { interceptors: tracing.clientInterceptors } : {}),
    }),
    connection,
  };
}

export async function connectWorker(target: TemporalTarget): Promise<NativeConnection> {
  // The worker's SDK loaded only where a worker runs: a command with a client does not pay for it.
  const { NativeConnection } = await import('@temporalio/worker');
  return reaching(target.address, () =>
    NativeConnection.connect({
      address: target.address,
      ...(target.tls !== undefined ? { tls: target.tls } : {}),
      ...(target.apiKey ? { apiKey: target.apiKey } : {}),
    }),
  );
}
