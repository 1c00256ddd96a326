import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry/lib/worker/index.js';
import { Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { cachedWorkflowBundle } from '../../src/runtime/worker/workflow-bundle.js';
import { fixturesDir } from '../support/temporal.js';

// With tracing on, workers run a bundle of their own with the OpenTelemetry workflow interceptors
// (src/runtime/worker/workflow-bundle.ts). The interceptors make spans, never commands: every recorded history
// (test/flows/replay/replay.test.ts replays them with the usual bundle) replays with the tracing bundle too, so
// tracing can be turned on or off under running workflows.

const require = createRequire(import.meta.url);
const historiesDir = path.join(fixturesDir, 'histories');
const histories = readdirSync(historiesDir).filter((file) => file.endsWith('.json'));
const spans = new InMemorySpanExporter();
let codePath: string;

beforeAll(async () => {
  ({ codePath } = await cachedWorkflowBundle({
    cacheDirs: [path.join(fixturesDir, '..', '.artifacts')],
    workflowInterceptorModules: [
      require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
    ],
  }));
}, 300_000);

describe('recorded histories with the tracing bundle', () => {
  it('is the bundle with the interceptors', () => {
    expect(path.basename(codePath)).toMatch(/^workflow-bundle-traced-[0-9a-f]{16}\.js$/);
    expect(readFileSync(codePath, 'utf8')).toContain('OpenTelemetryInboundInterceptor');
  });

  it.each(histories)('replays %s deterministically', async (file) => {
    const history = JSON.parse(readFileSync(path.join(historiesDir, file), 'utf8'));
    await expect(
      Worker.runReplayHistory(
        {
          workflowBundle: { codePath },
          sinks: { exporter: makeWorkflowExporter(new SimpleSpanProcessor(spans), Resource.default()) },
        },
        history,
        file.replace(/\.json$/, ''),
      ),
    ).resolves.toBeUndefined();
  });
});
