import { trace } from '@opentelemetry/api';
import { activeSpanContext, inSpan, rememberEntryTrace } from '../telemetry/tracing.js';
import type { LedgerPort, PostResult } from './ledger-port.js';
import { passedThrough } from './ledger-reads.js';

/**
 * The ledger the activities write through when tracing is on (OTEL_*): each write is a span (`ledger.post`,
 * `ledger.reverse`, `ledger.postMany`) inside the activity's, and each new entry remembers that span, so the
 * push of the entry to a target links back to the webhook's trace (src/telemetry/tracing.ts). Every other
 * method of the port passes straight through (test/ledger/ledger-decorators.test.ts).
 */
export function tracedLedger(ledger: LedgerPort): LedgerPort {
  // In the write's span: how many entries were new (a repeat books nothing), and which span posted each.
  const remember = (results: readonly PostResult[]) => {
    trace.getActiveSpan()?.setAttribute('booksync.entries.created', results.filter((r) => r.created).length);
    const context = activeSpanContext();
    if (!context) return;
    for (const result of results) if (result.created) rememberEntryTrace(result.entry.key, context);
  };
  return {
    post: (entry) =>
      inSpan('ledger.post', { attributes: { 'booksync.entry.key': entry.key } }, async () => {
        const result = await ledger.post(entry);
        remember([result]);
        return result;
      }),
    reverse: (key, options) =>
      inSpan('ledger.reverse', { attributes: { 'booksync.entry.reverses': key } }, async () => {
        const result = await ledger.reverse(key, options);
        remember([result]);
        return result;
      }),
    postMany: (entries) =>
      inSpan(
        'ledger.postMany',
        // The keys of a record's few entries (a payment and its fee), comma-separated (no key holds one); a
        // backfill page's only counted.
        {
          attributes: {
            'booksync.entries': entries.length,
            ...(entries.length <= 20 ? { 'booksync.entry.keys': entries.map((e) => e.key).join(',') } : {}),
          },
        },
        async () => {
          const results = await ledger.postMany(entries);
          remember(results);
          return results;
        },
      ),
    ...passedThrough(ledger),
  };
}
