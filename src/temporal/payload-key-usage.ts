import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { ENCRYPTED_ENCODING, KEY_ID_METADATA } from './payload-codec.js';

// Which payload keys the histories of a namespace still need: every workflow Temporal keeps, running or
// closed (a closed one stays, readable in the Web UI and the CLI, until the namespace's retention removes
// it), each history read event by event for its encrypted payloads' key ids (the `encryption-key-id` of
// their metadata; nothing is decrypted, no key is needed). What `booksync temporal payload-keys` reports
// before an old key is dropped from PAYLOAD_KEYS: a key any history names is still needed.

const { temporal } = proto;
const RUNNING = temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
const statusNames = temporal.api.enums.v1.WorkflowExecutionStatus;
const encryptedEncoding = Buffer.from(ENCRYPTED_ENCODING);

/** One workflow run whose history holds a payload written with a key. */
export interface KeyedWorkflow {
  workflowId: string;
  runId: string;
  /** `running`, `completed`, `failed`, `canceled`, `terminated`, `continued-as-new`, `timed-out`. */
  status: string;
}

/** What the histories hold of one key id. */
export interface KeyUsage {
  keyId: string;
  /** Workflow runs whose history holds at least one payload written with the key. */
  runs: number;
  running: number;
  closed: number;
  /** The first of them, as listed (at most `firstN`). */
  first: KeyedWorkflow[];
}

export interface PayloadKeyUsage {
  namespace: string;
  /** Workflow runs read, running and closed. */
  read: { runs: number; running: number; closed: number };
  /** By key id, the most used first. */
  keys: KeyUsage[];
  /** How long the namespace keeps a closed workflow, in seconds; null when it does not say. */
  retentionSeconds: number | null;
}

export interface PayloadKeyUsageOptions {
  /** How many workflow ids to keep per key id. */
  firstN: number;
  /** Histories read at once. */
  concurrency?: number;
  /** Workflows per page of the list; events per page of a history. */
  pageSize?: number;
}

type Service = Connection['workflowService'];

/** Reads every workflow of `namespace` Temporal still keeps, and the key ids of its history's payloads. */
export async function payloadKeyUsage(
  connection: Connection,
  namespace: string,
  options: PayloadKeyUsageOptions,
): Promise<PayloadKeyUsage> {
  const service = connection.workflowService;
  const concurrency = options.concurrency ?? 4;
  const pageSize = options.pageSize ?? 100;
  const byKey = new Map<string, KeyUsage>();
  const read = { runs: 0, running: 0, closed: 0 };

  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await service.listWorkflowExecutions({
      namespace,
      pageSize,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    const executions = (page.executions ?? []).filter((e) => e.execution?.workflowId && e.execution.runId);
    // In list order, a few histories at a time; each key's first ids stay in list order.
    for (let i = 0; i < executions.length; i += concurrency) {
      const batch = executions.slice(i, i + concurrency);
      const keysOfEach = await Promise.all(
        batch.map((e) =>
          historyKeyIds(
            service,
            namespace,
            e.execution?.workflowId ?? '',
            e.execution?.runId ?? '',
            pageSize,
          ),
        ),
      );
      batch.forEach((execution, j) => {
        const running = execution.status === RUNNING;
        read.runs++;
        if (running) read.running++;
        else read.closed++;
        const workflow: KeyedWorkflow = {
          workflowId: execution.execution?.workflowId ?? '',
          runId: execution.execution?.runId ?? '',
          status: statusName(execution.status),
        };
        for (const keyId of keysOfEach[j] ?? []) {
          let usage = byKey.get(keyId);
          if (!usage) {
            usage = { keyId, runs: 0, running: 0, closed: 0, first: [] };
            byKey.set(keyId, usage);
          }
          usage.runs++;
          if (running) usage.running++;
          else usage.closed++;
          if (usage.first.length < options.firstN) usage.first.push(workflow);
        }
      });
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);

  return {
    namespace,
    read,
    keys: [...byKey.values()].sort((a, b) => b.runs - a.runs || a.keyId.localeCompare(b.keyId)),
    retentionSeconds: await retentionOf(service, namespace),
  };
}

/** The key ids of the encrypted payloads anywhere in one run's history, page by page. */
async function historyKeyIds(
  service: Service,
  namespace: string,
  workflowId: string,
  runId: string,
  pageSize: number,
): Promise<Set<string>> {
  const ids = new Set<string>();
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await service.getWorkflowExecutionHistory({
      namespace,
      execution: { workflowId, runId },
      maximumPageSize: pageSize * 10,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    for (const event of page.history?.events ?? []) for (const id of keyIdsOfEvent(event)) ids.add(id);
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return ids;
}

/** The key ids of the encrypted payloads anywhere in one history event. */
export function keyIdsOfEvent(event: unknown): Set<string> {
  const ids = new Set<string>();
  collectKeyIds(event, ids, 0);
  return ids;
}

/**
 * Walks an event for payloads (`{metadata: {encoding, ...}, data}`) wherever its attributes hold them: inputs,
 * results, signals, markers' details, headers, memos, failures' encoded attributes and their causes.
 */
function collectKeyIds(value: unknown, ids: Set<string>, depth: number): void {
  if (value === null || typeof value !== 'object' || depth > 32 || ArrayBuffer.isView(value)) return;
  if (Array.isArray(value)) {
    for (const item of value) collectKeyIds(item, ids, depth + 1);
    return;
  }
  const metadata = (value as { metadata?: unknown }).metadata;
  if (
    metadata &&
    typeof metadata === 'object' &&
    ArrayBuffer.isView((metadata as { encoding?: unknown }).encoding)
  ) {
    const { encoding, [KEY_ID_METADATA]: keyId } = metadata as Record<string, Uint8Array | undefined>;
    if (encoding && encryptedEncoding.equals(encoding))
      ids.add(keyId?.length ? Buffer.from(keyId).toString() : '(no id)');
    return;
  }
  for (const field of Object.values(value)) collectKeyIds(field, ids, depth + 1);
}

function statusName(status: number | null | undefined): string {
  const name = status === null || status === undefined ? undefined : statusNames[status];
  return name ? name.replace('WORKFLOW_EXECUTION_STATUS_', '').toLowerCase().replaceAll('_', '-') : 'unknown';
}

/** The namespace's retention of closed workflows, in seconds; null when it cannot be read. */
async function retentionOf(service: Service, namespace: string): Promise<number | null> {
  try {
    const described = await service.describeNamespace({ namespace });
    const ttl = described.config?.workflowExecutionRetentionTtl;
    return ttl?.seconds === undefined || ttl.seconds === null ? null : Number(ttl.seconds);
  } catch {
    return null;
  }
}
