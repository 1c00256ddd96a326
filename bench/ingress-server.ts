import { startIngress } from '../src/ingress/main.js';
import { createLogger } from '../src/logging/logger.js';
import { connectClient } from '../src/runtime/temporal/temporal-connection.js';
import { startTracing, stopTracing } from '../src/telemetry/tracing.js';
import { payloadEncryption } from '../src/temporal/data-converter.js';
import { payloadKeysFrom } from '../src/temporal/payload-codec.js';
import { childInput, serveParent } from './child.js';

// Child process: booksync's webhook ingress as `booksync ingress` runs it (its own Temporal connection,
// JSON logs at info on stdout, which the bench discards), on loopback. With `secure`, as `booksync ingress`
// runs with PAYLOAD_KEYS and OTEL_* in its environment: tracing started, its client encrypting.

interface Input {
  temporalAddress: string;
  taskQueue: string;
  secrets: string[];
  port?: number;
  secure?: boolean;
}

const input = childInput<Input>();
if (input.secure) await startTracing();
const temporal = input.secure
  ? {
      client: (
        await connectClient({
          address: input.temporalAddress,
          namespace: 'default',
          encryption: payloadEncryption(payloadKeysFrom(process.env)),
        })
      ).client,
    }
  : { address: input.temporalAddress };
const ingress = await startIngress({
  host: '127.0.0.1',
  port: input.port ?? 0,
  temporal,
  taskQueue: input.taskQueue,
  webhookSecrets: input.secrets,
  logger: createLogger({ level: 'info', format: 'json' }),
});
serveParent({}, async () => {
  await ingress.close();
  await stopTracing();
});
process.send?.({ type: 'ready', address: ingress.address });
