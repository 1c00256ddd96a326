import type { Client } from '@temporalio/client';
import type { ReferenceData } from '../../src/targets/documents.js';

// A stand-in for the Temporal client the console is given, for inject tests without a Temporal server: the
// push workflows' view query answers as given, signals are recorded, one reconciliation run is listed.

export interface RecordedSignal {
  workflowId: string;
  signal: string;
  args: unknown[];
}

export function consoleTemporalFake(): { client: Client; signals: RecordedSignal[] } {
  const signals: RecordedSignal[] = [];
  const client = {
    workflow: {
      getHandle(workflowId: string) {
        return {
          async query() {
            return {
              target: workflowId,
              state: 'IDLE',
              pending: 0,
              pushed: 0,
              failed: 0,
              skipped: 0,
              lastFailures: [],
              lastError: null,
            };
          },
          async signal(def: { name: string } | string, ...args: unknown[]) {
            signals.push({ workflowId, signal: typeof def === 'string' ? def : def.name, args });
          },
          async result() {
            throw new Error('no such workflow in this fake');
          },
        };
      },
      // One finished reconciliation run; no other workflow.
      list: ({ query }: { query: string }) => ({
        async *[Symbol.asyncIterator]() {
          if (query.includes('"reconciliation"')) {
            yield {
              workflowId: 'reconcile-scheduled-2026-03-15T11:00:00Z',
              status: { name: 'COMPLETED' },
              startTime: new Date('2026-03-15T11:00:00Z'),
              closeTime: new Date('2026-03-15T11:00:04Z'),
            };
          }
        },
      }),
    },
  } as unknown as Client;
  return { client, signals };
}

/** The service's names, one of them hostile. */
export const hostileReferences: ReferenceData = {
  paymentLink: async (id) => ({ name: `INV-${id}`, customerId: 'cus_evil' }),
  customer: async (id) => ({ serviceId: id, name: '<script>alert("owned")</script>', email: null }),
  vendor: async (id) => ({ serviceId: id, name: 'Flour <b>Mill</b>', email: null }),
  bill: async () => ({ invoiceNumber: 'FM-1', vendorId: 'ven_1' }),
  payout: async () => ({ paymentIds: [] }),
};
