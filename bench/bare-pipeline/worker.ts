import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import Database from 'better-sqlite3';
import { childInput, serveParent } from '../child.js';
import type { BareActivities } from './workflow.js';

// Child process: the bare pipeline's worker, a process of its own as booksync's worker is, with its own
// workflow bundle (./workflow.ts only, bundled once by the parent) and one activity that writes a row to SQLite the way booksync's
// ledger writes (WAL, synchronous FULL, one transaction a payment).

interface Input {
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  dbPath: string;
  /** Where the SDK's own metrics are served, as booksync's worker serves them (TEMPORAL_SDK_METRICS_PORT). */
  metricsPort: number;
  /** The bundle of ./workflow.ts (bench/bare-pipeline.ts builds it once a run). */
  workflowBundlePath: string;
}

const input = childInput<Input>();
Runtime.install({
  logger: new DefaultLogger('WARN'),
  telemetryOptions: {
    metrics: {
      metricPrefix: 'temporal_',
      prometheus: {
        bindAddress: `127.0.0.1:${input.metricsPort}`,
        countersTotalSuffix: true,
        unitSuffix: true,
        useSecondsForDurations: true,
      },
    },
  },
});
const db = new Database(input.dbPath);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(
  'CREATE TABLE IF NOT EXISTS done (payment_id TEXT PRIMARY KEY, event_ids TEXT NOT NULL, done_at INTEGER NOT NULL)',
);
const insert = db.prepare('INSERT OR IGNORE INTO done (payment_id, event_ids, done_at) VALUES (?, ?, ?)');

const activities: BareActivities = {
  async record(paymentId, eventIds) {
    insert.run(paymentId, JSON.stringify(eventIds), Date.now());
  },
};

const connection = await NativeConnection.connect({ address: input.temporalAddress });
const worker = await Worker.create({
  connection,
  namespace: input.namespace,
  taskQueue: input.taskQueue,
  workflowBundle: { codePath: input.workflowBundlePath },
  activities,
});
const run = worker.run();
serveParent({}, async () => {
  if (worker.getState() === 'RUNNING') worker.shutdown();
  await run;
  await connection.close();
  db.close();
});
process.send?.({ type: 'ready' });
