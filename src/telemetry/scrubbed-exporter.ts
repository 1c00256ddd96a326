import type { Attributes } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

// Spans leave the process without error texts: an error's message (a target's refusal, a service's answer)
// may name a customer or an invoice, and a trace backend keeps it in plain. Every span, booksync's own, the
// Temporal interceptors' and the workflows' (their sink exports through the same processor), keeps its error
// status and its exceptions' type and stack frames; the status message, the exception message and the
// stack's first line (which repeats the message) are dropped.

function scrubbedException(attributes: Attributes): Attributes {
  const { 'exception.message': _message, 'exception.stacktrace': stack, ...kept } = attributes;
  if (typeof stack !== 'string') return kept;
  const frames = stack.split('\n').filter((line) => /^\s+at /.test(line));
  return frames.length > 0 ? { ...kept, 'exception.stacktrace': frames.join('\n') } : kept;
}

/** The span as exported: everything of it but the error texts. */
export function scrubbedSpan(span: ReadableSpan): ReadableSpan {
  const events = span.events.map((event) =>
    event.name === 'exception' ? { ...event, attributes: scrubbedException(event.attributes ?? {}) } : event,
  );
  return Object.create(span, {
    status: { value: { code: span.status.code }, enumerable: true },
    events: { value: events, enumerable: true },
  }) as ReadableSpan;
}

/** Exports through `inner` what scrubbedSpan keeps of each span. */
export class ScrubbedSpanExporter implements SpanExporter {
  private readonly inner: SpanExporter;
  constructor(inner: SpanExporter) {
    this.inner = inner;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans.map(scrubbedSpan), done);
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
