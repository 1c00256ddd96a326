import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/free-port.js';
import { ProcessStack } from '../../support/process-stack.js';

// `booksync worker` with TEMPORAL_SDK_METRICS_PORT exports the Temporal SDK's own Prometheus metrics on a
// port of their own, beside booksync's on METRICS_PORT, under the names docs/operations.md lists for a dashboard.

describe('the Temporal SDK metrics of a worker', () => {
  let stack: ProcessStack;
  let sdkPort: number;

  beforeAll(async () => {
    sdkPort = await freePort();
    stack = await ProcessStack.start({ workerEnv: { TEMPORAL_SDK_METRICS_PORT: String(sdkPort) } });
  }, 300_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('serves temporal_* metrics on their own port, apart from booksync’s', async () => {
    const scrape = async () => (await fetch(`http://127.0.0.1:${sdkPort}/metrics`)).text();
    let text = await scrape();
    const deadline = Date.now() + 60_000;
    while (!text.includes('temporal_worker_task_slots_available') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1_000));
      text = await scrape();
    }
    for (const name of [
      'temporal_worker_task_slots_available',
      'temporal_num_pollers',
      'temporal_request_total',
    ]) {
      expect(text, name).toContain(name);
    }
    expect(text).toContain(`task_queue="${stack.taskQueue}"`);
    const booksync = await (await fetch(`${stack.worker?.healthUrl}/metrics`)).text();
    expect(booksync).not.toContain('temporal_worker_task_slots_available');
  });
});
