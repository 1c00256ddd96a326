import { SpanStatusCode } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { failureCode, pushLastError } from '../../src/flows/in-workflow/last-error-reason.js';
import { createLogger } from '../../src/logging/logger.js';
import { PinoTemporalLogger } from '../../src/runtime/temporal/sdk-runtime.js';
import { TargetRefusedError } from '../../src/targets/errors.js';
import { ScrubbedSpanExporter } from '../../src/telemetry/scrubbed-exporter.js';

// A target's refusal names a customer and an invoice: that text never reaches what is kept in plain outside
// booksync's encrypted payloads, the push workflow's LastError, exported spans, the SDK's log lines.

const customer = 'Ada Lovelace Bakery';
const invoice = 'INV-2041';
const refusal = `Tryton refused: party ${customer} has no receivable account for invoice ${invoice}`;

function leaks(text: string): string[] {
  return [customer, invoice].filter((secret) => text.includes(secret));
}

function activityFailure(type: string): ActivityFailure {
  const cause = ApplicationFailure.create({ message: refusal, type, nonRetryable: true });
  return new ActivityFailure(
    'Activity task failed',
    'pushToTarget',
    '1',
    RetryState.NON_RETRYABLE_FAILURE,
    'w',
    cause,
  );
}

describe('error texts outside the payload codec', () => {
  it('exported spans keep the error status and exception type, not its message', () => {
    const memory = new InMemorySpanExporter();
    const provider = new BasicTracerProvider();
    provider.addSpanProcessor(new SimpleSpanProcessor(new ScrubbedSpanExporter(memory)));
    const span = provider.getTracer('test').startSpan('push tryton');
    const error = new Error(refusal);
    error.name = 'TargetRefusedError';
    span.recordException(error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: refusal });
    span.end();
    const [exported] = memory.getFinishedSpans();
    expect(exported?.status).toEqual({ code: SpanStatusCode.ERROR });
    const exception = exported?.events.find((e) => e.name === 'exception');
    expect(exception?.attributes?.['exception.type']).toBe('TargetRefusedError');
    expect(String(exception?.attributes?.['exception.stacktrace'])).toMatch(/^\s+at /);
    expect(
      leaks(JSON.stringify({ status: exported?.status, events: exported?.events, name: exported?.name })),
    ).toEqual([]);
  });

  it("the SDK's 'Activity failed' line keeps type, activity type, workflow id and attempt, not the message", () => {
    const lines: string[] = [];
    const logger = createLogger(
      { level: 'debug', format: 'json' },
      { write: (line: string) => void lines.push(line) },
    );
    new PinoTemporalLogger(logger).warn('Activity failed', {
      // The activity's own error, its fields enumerable: the target's text in targetMessage.
      error: new TargetRefusedError('tryton', refusal),
      activityType: 'pushToTarget',
      workflowId: 'accounting-target-tryton',
      attempt: 3,
    });
    const [line] = lines;
    expect(leaks(line ?? '')).toEqual([]);
    expect(JSON.parse(line ?? '{}')).toMatchObject({
      msg: 'Activity failed',
      error: { type: 'TargetRefusedError' },
      activityType: 'pushToTarget',
      workflowId: 'accounting-target-tryton',
      attempt: 3,
    });
  });

  it("the push's LastError is a reason code and the refused entry's key", () => {
    expect(failureCode(activityFailure('TargetUnavailableError'))).toBe('TARGET_UNAVAILABLE');
    expect(failureCode(activityFailure('TargetDisconnectedError'))).toBe('CONNECTION_LOST');
    expect(failureCode(activityFailure('SomeNewError'))).toBe('SOME_NEW');
    expect(pushLastError(null, { count: 2, key: 'payment:pay_123' }, null)).toBe('FAILED payment:pay_123');
    expect(pushLastError('TARGET_UNAVAILABLE', { count: 2, key: 'payment:pay_123' }, null)).toBe(
      'TARGET_UNAVAILABLE',
    );
    expect(pushLastError(null, { count: 0, key: undefined }, `token of ${customer} expires`)).toBe(
      'TARGET_WARNING',
    );
    expect(pushLastError(null, { count: 0, key: undefined }, null)).toBeNull();
  });
});
