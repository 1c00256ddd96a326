import { type Settings, SettingsError } from '../config/settings.js';
import type { CodecAccess, CodecRoutesOptions } from '../ingress/routes/codec.js';
import type { Logger } from '../logging/logger.js';
import type { PayloadEncryption } from '../temporal/data-converter.js';

// Whether booksync's codec server (src/ingress/routes/codec.ts) is served, and to whom, for every process that
// runs the ingress (booksync start, booksync ingress). It decodes every history and (if asked) seals payloads
// under the current key, so it is off unless a setting serves it: CODEC_SERVER_TOKEN (callers present it as
// a bearer) or CODEC_SERVER_OPEN (no credential, on purpose). Where it listens never opens it: an operations
// listener on 0.0.0.0 (docker-compose.yml) is reached by every container of its network.
//
// The one exception is the embedded demo, `booksync start` with its own Temporal dev server: everything runs on
// this machine, and the dev server's Web UI decodes histories through the codec server. That UI has no sign-in,
// and the Web UI sends a bearer only as its own sign-in's token to an https endpoint ("Pass access token",
// docs.temporal.io/production-deployment/data-encryption, "Authorization"), so it cannot present a token: the
// demo serves the codec open, but only when the listener it is on is loopback, and then only to requests that
// name a loopback host (the guide calls a codec server reachable on localhost only "a legitimate security
// pattern"). A demo whose operations listener is not loopback gets no codec server unless a setting asks.

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

/** The address of the listener the codec server is served on: the operations one, else the ingress's. */
function codecListenerHost(settings: Settings): string {
  return settings.OPS_PORT !== undefined ? settings.OPS_HOST : settings.INGRESS_HOST;
}

/** The Web UI's origins as a browser may spell them: a loopback UI is reached as 127.0.0.1 or localhost. */
function uiOrigins(uiUrl: string): string[] {
  const url = new URL(uiUrl);
  if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost') return [url.origin];
  return ['127.0.0.1', 'localhost'].map(
    (name) => `${url.protocol}//${name}${url.port ? `:${url.port}` : ''}`,
  );
}

export type CodecServerOptions = Omit<CodecRoutesOptions, 'now'>;

/**
 * The ingress's codec option: served only with PAYLOAD_KEYS and a setting that serves it (CODEC_SERVER_TOKEN,
 * CODEC_SERVER_OPEN), or in the embedded demo (`embeddedUiUrl`: the dev server's Web UI, booksync start
 * without TEMPORAL_ADDRESS) open on a loopback listener. CORS answers CODEC_CORS_ORIGIN, else the embedded UI.
 * What it decided is logged once.
 */
export function codecServerOptions(
  settings: Settings,
  encryption: PayloadEncryption | null,
  embeddedUiUrl: string | null,
  logger?: Logger,
): { codec?: CodecServerOptions } {
  const token = settings.CODEC_SERVER_TOKEN;
  const open = settings.CODEC_SERVER_OPEN;
  if (token !== undefined && open) {
    throw new SettingsError(
      'CODEC_SERVER_OPEN: true serves the codec server without a credential, CODEC_SERVER_TOKEN asks for one: set one of them',
    );
  }
  if (!encryption) {
    if (token !== undefined || open) {
      logger?.info('codec server not served: payloads are not encrypted (no PAYLOAD_KEYS)');
    }
    return {};
  }
  const host = codecListenerHost(settings);
  const loopback = isLoopback(host);
  let access: CodecAccess;
  if (token !== undefined) {
    access = { token };
  } else if (open) {
    access = { open: true, loopbackHostOnly: loopback };
    if (!loopback) {
      logger?.warn(
        { host },
        'codec server open without a credential (CODEC_SERVER_OPEN) on a listener that is not loopback: whoever reaches it reads every history; prefer CODEC_SERVER_TOKEN',
      );
    }
  } else if (embeddedUiUrl !== null && loopback) {
    access = { open: true, loopbackHostOnly: true };
  } else {
    logger?.[embeddedUiUrl === null ? 'info' : 'warn'](
      { host },
      embeddedUiUrl === null
        ? 'codec server not served: set CODEC_SERVER_TOKEN to serve /codec/decode to callers presenting it'
        : "codec server not served: its listener is not loopback, so the embedded Web UI's decoding is not opened; set CODEC_SERVER_TOKEN (the temporal CLI's --codec-auth) or, on purpose, CODEC_SERVER_OPEN",
    );
    return {};
  }
  const corsOrigins = settings.CODEC_CORS_ORIGIN
    ? [settings.CODEC_CORS_ORIGIN]
    : embeddedUiUrl !== null
      ? uiOrigins(embeddedUiUrl)
      : [];
  const codec: CodecServerOptions = {
    // Shows a history as it is: a plain payload (a patch marker's details, one written before encryption) is
    // displayed as it is even with PAYLOAD_ENCRYPTION_REQUIRED, which guards what booksync's own processes read.
    codec: encryption.codec.forDisplay(),
    corsOrigins,
    access,
    encode: settings.CODEC_SERVER_ENCODE,
    requestsPerMinute: settings.CODEC_DECODE_RATE_LIMIT,
  };
  logger?.info(
    {
      access: 'token' in access ? 'bearer CODEC_SERVER_TOKEN' : loopback ? 'open, loopback only' : 'open',
      corsOrigins,
      encode: codec.encode,
      requestsPerMinute: codec.requestsPerMinute,
    },
    "codec server: /codec/decode served with the operators' routes",
  );
  return { codec };
}

/** Whether these options let the embedded Web UI decode (it presents no credential). */
export function embeddedUiCanDecode(options: { codec?: CodecServerOptions }): boolean {
  return options.codec !== undefined && 'open' in options.codec.access;
}
