import { readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Settings } from '../config/settings.js';

export interface TemporalTarget {
  address: string;
  namespace: string;
  tls?: { clientCertPair?: { crt: Buffer; key: Buffer } } | boolean;
  apiKey?: string;
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
    ...(mtls ? { tls: mtls } : settings.TEMPORAL_TLS || settings.TEMPORAL_API_KEY ? { tls: true } : {}),
    ...(settings.TEMPORAL_API_KEY ? { apiKey: settings.TEMPORAL_API_KEY } : {}),
  };
}

/** A client connection that fails fast with a clear message when Temporal is unreachable. */
export async function connectClient(
  target: TemporalTarget,
): Promise<{ client: Client; connection: Connection }> {
  const connection = await Connection.connect({
    address: target.address,
    connectTimeout: 5_000,
    ...(target.tls !== undefined ? { tls: target.tls } : {}),
    ...(target.apiKey ? { apiKey: target.apiKey } : {}),
  });
  return { client: new Client({ connection, namespace: target.namespace }), connection };
}

export async function connectWorker(target: TemporalTarget): Promise<NativeConnection> {
  return NativeConnection.connect({
    address: target.address,
    ...(target.tls !== undefined ? { tls: target.tls } : {}),
    ...(target.apiKey ? { apiKey: target.apiKey } : {}),
  });
}
