import { startIngress } from '../src/ingress/main.js';
import { createLogger } from '../src/logging/logger.js';
import { childInput, serveParent } from './child.js';

// Child process: booksync's webhook ingress as `booksync ingress` runs it (its own Temporal connection,
// JSON logs at info on stdout, which the bench discards), on loopback.

interface Input {
  temporalAddress: string;
  taskQueue: string;
  secrets: string[];
  port?: number;
}

const input = childInput<Input>();
const ingress = await startIngress({
  host: '127.0.0.1',
  port: input.port ?? 0,
  temporal: { address: input.temporalAddress },
  taskQueue: input.taskQueue,
  webhookSecrets: input.secrets,
  logger: createLogger({ level: 'info', format: 'json' }),
});
serveParent({}, () => ingress.close());
process.send?.({ type: 'ready', address: ingress.address });
