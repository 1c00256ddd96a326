import { createServer, type Server } from 'node:http';
import type { Worker } from '@temporalio/worker';
import type { Registry } from 'prom-client';

/** /healthz (the process serves), /readyz (the worker is polling) and /metrics for one worker process. */
export async function startWorkerHealthServer(options: {
  worker: Worker;
  registry: Registry;
  host: string;
  port: number;
}): Promise<{ address: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const path = request.url?.split('?')[0];
    if (path === '/healthz') return void response.writeHead(200).end('ok');
    if (path === '/readyz') {
      const running = options.worker.getState() === 'RUNNING';
      return void response.writeHead(running ? 200 : 503).end(options.worker.getState());
    }
    if (path === '/metrics') {
      void options.registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': options.registry.contentType }).end(text),
        () => response.writeHead(500).end(),
      );
      return;
    }
    response.writeHead(404).end();
  });
  // No slow client keeps a health port busy.
  server.requestTimeout = 5_000;
  server.headersTimeout = 5_000;
  // A port already taken fails start-up with its error (an 'error' event nobody listens to would leave the
  // start waiting forever).
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address();
  const port = typeof bound === 'object' && bound ? bound.port : options.port;
  return {
    address: `http://${options.host}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
