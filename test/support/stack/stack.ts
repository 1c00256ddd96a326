import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ActivityDependencies } from '../../../src/flows/activities.js';
import type { Logger } from '../../../src/logging/logger.js';
import { ServiceClient } from '../../../src/service/client.js';
import { uniqueTaskQueue } from '../temporal.js';
import { closer } from './closer.js';
import { type EmulatorChoice, type EmulatorPart, startEmulatorPart } from './emulator.js';
import { type IngressChoice, type IngressPart, startIngressPart } from './ingress.js';
import { type LedgerChoice, type LedgerPart, ledgerPart } from './ledger.js';
import type { LogCapture } from './log-capture.js';
import { startTemporalPart, type TemporalChoice, type TemporalPart } from './temporal.js';
import {
  type InProcessWorkerChoice,
  type InProcessWorkerPart,
  startInProcessWorker,
} from './worker-in-process.js';
import { type ProcessWorkerChoice, type ProcessWorkerPart, startProcessWorker } from './worker-process.js';

// ONE way to start each part of booksync for a test, composed: Temporal, the emulator, the ledger, booksync's
// worker (in the test process or as a `booksync worker` process) and the ingress, each on loopback and each
// option picking how its part runs or leaving it out. Parts start in dependency order (a folder, Temporal,
// the emulator, the ledger, the worker, the ingress) and close in reverse, also when a later part fails to
// start. A part given rather than chosen (a caller's Temporal environment, another stack's emulator client)
// is used and left running. The presets (e2e-stack.ts, process-stack.ts, command-api-stack.ts,
// test/flows/bill-payment/stack.ts) are thin shapes over this.

export interface StackOptions {
  temporal: TemporalChoice;
  /** An emulator of the stack's own, the client of one running elsewhere (left running), or none. */
  emulator: EmulatorChoice | ServiceClient | false;
  ledger?: LedgerChoice | false;
  worker?:
    | ({ run: 'in-process' } & InProcessWorkerChoice)
    | ({ run: 'process' } & ProcessWorkerChoice)
    | false;
  /** Accounting targets an in-process worker pushes to (their index, references). */
  targets?: ActivityDependencies['targets'];
  ingress?: IngressChoice | false;
  /** The worker's and ingress's task queue is this, made unique (default 'stack'). */
  taskQueuePrefix?: string;
  /** Names the stack's temp folder. */
  name?: string;
  /** Every part's log lines, captured by source (a worker process needs this). */
  logs?: LogCapture;
  /** Or one logger, for the ingress and the activities (components 'ingress', 'activities'). */
  logger?: Logger;
}

export interface Stack {
  /** The stack's temp folder, removed on close. */
  dir: string;
  taskQueue: string;
  temporal: TemporalPart;
  emulator: EmulatorPart | undefined;
  /** The service client the worker and ingress use (the emulator's, or the one given). */
  service: ServiceClient | undefined;
  ledger: LedgerPart | undefined;
  worker: InProcessWorkerPart | undefined;
  workerProcess: ProcessWorkerPart | undefined;
  ingress: IngressPart | undefined;
  /** Every part, last started first; throws the first failure after trying them all. */
  close(): Promise<void>;
}

type PartName = 'temporal' | 'emulator' | 'service-client' | 'ingress' | 'activities';

export async function startStack(options: StackOptions): Promise<Stack> {
  const closing = closer();
  const dir = mkdtempSync(path.join(tmpdir(), `booksync-${options.name ?? 'stack'}-`));
  closing.push(() => rmSync(dir, { recursive: true, force: true }));
  const logger = (part: PartName): Logger | undefined => {
    if (options.logs) {
      const source = part === 'service-client' ? 'test-service-client' : part;
      return options.logs.logger(source, part === 'temporal' ? 'warn' : 'debug');
    }
    return part === 'ingress' || part === 'activities'
      ? options.logger?.child({ component: part })
      : undefined;
  };
  const context = { dir, closing };
  try {
    const temporal = await startTemporalPart(options.temporal, { ...context, logger: logger('temporal') });
    const emulator =
      options.emulator && !(options.emulator instanceof ServiceClient)
        ? await startEmulatorPart(options.emulator, {
            ...context,
            temporal,
            logger: logger('emulator'),
            serviceLogger: logger('service-client'),
          })
        : undefined;
    const service = options.emulator instanceof ServiceClient ? options.emulator : emulator?.service;
    const ledger = options.ledger ? ledgerPart(options.ledger, context) : undefined;
    const taskQueue = uniqueTaskQueue(options.taskQueuePrefix ?? 'stack');
    const needs = <T>(part: T | undefined, what: string): T => {
      if (part === undefined) throw new Error(`booksync's worker and ingress need the stack's ${what}`);
      return part;
    };
    let worker: InProcessWorkerPart | undefined;
    let workerProcess: ProcessWorkerPart | undefined;
    if (options.worker && options.worker.run === 'in-process') {
      worker = await startInProcessWorker(
        { ...options.worker, ...(options.targets ? { targets: options.targets } : {}) },
        {
          closing,
          temporal,
          taskQueue,
          service: needs(service, 'service'),
          ledger: needs(ledger, 'ledger').open(),
          logger: logger('activities'),
        },
      );
    } else if (options.worker) {
      if (!options.logs) throw new Error("a worker process logs into the stack's LogCapture");
      const running = needs(emulator, 'emulator');
      workerProcess = await startProcessWorker(options.worker, {
        ...context,
        logs: options.logs,
        temporalAddress: temporal.address,
        temporalNamespace: temporal.namespace,
        taskQueue,
        serviceUrl: running.serviceUrl,
        apiKey: running.apiKey,
        ledgerPath: needs(ledger, 'ledger').path,
      });
    }
    const ingress = options.ingress
      ? await startIngressPart(options.ingress, {
          closing,
          temporal,
          taskQueue,
          service: needs(service, 'service'),
          logger: logger('ingress'),
        })
      : undefined;
    return {
      dir,
      taskQueue,
      temporal,
      emulator,
      service,
      ledger,
      worker,
      workerProcess,
      ingress,
      close: closing.close,
    };
  } catch (error) {
    await closing.close().catch(() => undefined);
    throw error;
  }
}
