import type { PayloadCodec } from '@temporalio/common';
import type { Settings } from '../config/settings.js';
import type { PayloadEncryption } from '../temporal/data-converter.js';

// Where booksync's codec server is and who may call it (src/ingress/routes/codec.ts), for every process that
// runs the ingress (booksync start, booksync ingress).

/** Whether a listener's address is this machine only. */
export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === 'localhost';
}

/** Where the operators' routes listen (the OPS_PORT listener, else the ingress's own). */
export function operationsBaseUrl(settings: Settings): string {
  return settings.OPS_PORT !== undefined
    ? `http://${settings.OPS_HOST}:${settings.OPS_PORT}`
    : `http://${settings.INGRESS_HOST}:${settings.INGRESS_PORT}`;
}

/**
 * The ingress's codec option: served with PAYLOAD_KEYS; the Web UI's origin from CODEC_CORS_ORIGIN, else
 * `uiOrigin` (the embedded dev server's UI); open without a key on the private operations listener or a
 * loopback-only ingress, else behind the command API key.
 */
export function codecServerOptions(
  settings: Settings,
  encryption: PayloadEncryption | null,
  uiOrigin: string | null,
): { codec?: { codec: PayloadCodec; corsOrigin: string | null; open: boolean } } {
  if (!encryption) return {};
  return {
    codec: {
      codec: encryption.codec,
      corsOrigin: settings.CODEC_CORS_ORIGIN ?? uiOrigin,
      open: settings.OPS_PORT !== undefined || isLoopback(settings.INGRESS_HOST),
    },
  };
}
