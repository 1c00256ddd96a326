import type { LogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import type { Logger } from '../../logging/logger.js';

const pinoLevel: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * An SDK log line's metadata without error texts: the SDK logs "Activity failed" (and the like) with the whole
 * error, whose message (a target's refusal, a service's answer) may name a customer or an invoice. An error
 * keeps its type (an ApplicationFailure's own type, else its class); activity type, workflow id, attempt and
 * the rest of the metadata stay.
 */
export function scrubbedMeta(meta: LogMetadata | undefined): LogMetadata {
  if (!meta) return {};
  return Object.fromEntries(
    Object.entries(meta).map(([key, value]) =>
      value instanceof Error ? [key, { type: errorType(value) }] : [key, value],
    ),
  );
}

function errorType(error: Error): string {
  const type = (error as { type?: unknown }).type;
  return typeof type === 'string' && type ? type : error.name;
}

/** The Temporal SDK's logs (worker, workflow and activity loggers) through booksync's pino logger, scrubbed. */
export class PinoTemporalLogger implements TemporalLogger {
  private readonly logger: Logger;
  constructor(logger: Logger) {
    this.logger = logger;
  }

  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    this.logger[pinoLevel[level]](scrubbedMeta(meta), message);
  }
  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}

/**
 * Installs the process-wide Temporal runtime once: SDK logs go to pino (the webpack bundling output at
 * debug), and no signal handlers, because booksync orders its own shutdown (stop intake, drain the
 * worker, close connections).
 */
export function installTemporalRuntime(logger: Logger, metrics?: { host: string; port: number }): void {
  Runtime.install({
    logger: new PinoTemporalLogger(logger.child({ component: 'temporal-sdk' })),
    shutdownSignals: [],
    // The SDK's own metrics (temporal_ prefix: task slots, polls, latencies) on a port of their own, beside
    // booksync's on METRICS_PORT: two registries, two scrape targets, no name clash.
    ...(metrics
      ? {
          telemetryOptions: {
            metrics: {
              metricPrefix: 'temporal_',
              prometheus: {
                bindAddress: `${metrics.host}:${metrics.port}`,
                countersTotalSuffix: true,
                unitSuffix: true,
                useSecondsForDurations: true,
              },
            },
          },
        }
      : {}),
  });
}
