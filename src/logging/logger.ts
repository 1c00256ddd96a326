import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { trace } from '@opentelemetry/api';
import pino, { type Logger, type LoggerOptions } from 'pino';
import pretty from 'pino-pretty';

export type { Logger } from 'pino';

// Every path that can carry a credential. Values are replaced, never logged; a test greps full scenario
// logs for every secret to keep this list honest.
export const redactedPaths = [
  'apiKey',
  'secret',
  'secrets',
  'webhookSecret',
  'webhookSecrets',
  'token',
  'password',
  'accountNumber',
  'authorization',
  'codeVerifier',
  'code_verifier',
  '*.apiKey',
  '*.secret',
  '*.secrets',
  '*.webhookSecret',
  '*.webhookSecrets',
  '*.token',
  '*.password',
  '*.accountNumber',
  '*.authorization',
  '*.codeVerifier',
  '*.code_verifier',
  'headers.authorization',
  'headers["service-signature"]',
  'req.headers.authorization',
  'req.headers["service-signature"]',
  'request.headers.authorization',
];

/**
 * The trace of the work a line is about (the span active where it is logged: an ingress request, an activity,
 * a ledger write), as `trace_id` and `span_id`, the names the Temporal SDK's OpenTelemetry interceptors give
 * workflow and activity log lines. Nothing without tracing (no active span) or when the line carries its own.
 */
export function traceFields(mergeObject: object): Record<string, string> {
  if ('trace_id' in mergeObject) return {};
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || !trace.isSpanContextValid(context)) return {};
  return { trace_id: context.traceId, span_id: context.spanId };
}

export interface LoggerSettings {
  level?: string;
  /** 'json' in production, 'pretty' on a terminal; default picks by whether stdout is a TTY. */
  format?: 'json' | 'pretty';
  name?: string;
}

export function createLogger(settings: LoggerSettings = {}, destination?: pino.DestinationStream): Logger {
  const format = settings.format ?? (process.stdout.isTTY ? 'pretty' : 'json');
  const options: LoggerOptions = {
    level: settings.level ?? process.env.LOG_LEVEL ?? 'info',
    redact: { paths: redactedPaths, censor: '[redacted]' },
    base: settings.name ? { name: settings.name } : undefined,
    mixin: traceFields,
  };
  if (destination) return pino(options, destination);
  if (format === 'pretty') {
    return pino({
      ...options,
      transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } },
    });
  }
  return pino(options);
}

/** A log file over this size is rotated when a process opens it: booksync.log.1 .. .3 are kept. */
const rotateAtBytes = 10 * 1024 * 1024;
const keptRotations = 3;

/** Moves a log file of rotateAtBytes or more to `.1` (and `.1` to `.2`...), keeping keptRotations. */
export function rotateLogFile(file: string, atBytes = rotateAtBytes): void {
  if (!existsSync(file) || statSync(file).size < atBytes) return;
  for (let i = keptRotations - 1; i >= 1; i--) {
    if (existsSync(`${file}.${i}`)) renameSync(`${file}.${i}`, `${file}.${i + 1}`);
  }
  renameSync(file, `${file}.1`);
}

/**
 * For a person at a terminal running the whole stack (`booksync start`): everything at `level` goes to a JSON
 * log file (rotated), and only warnings and errors reach the terminal, readable. The terminal then shows what
 * the command itself prints (addresses, the demo, the trial balance); LOG_LEVEL or --verbose bring the full
 * log back to the terminal (createLogger).
 */
export function createTerminalAndFileLogger(settings: {
  level: string;
  file: string;
  name?: string;
  /** Where the terminal's lines go (default: stdout). */
  terminal?: NodeJS.WritableStream;
}): Logger {
  mkdirSync(path.dirname(settings.file), { recursive: true, mode: 0o700 });
  rotateLogFile(settings.file);
  const options: LoggerOptions = {
    level: settings.level,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    base: settings.name ? { name: settings.name } : undefined,
    mixin: traceFields,
  };
  return pino(
    options,
    pino.multistream([
      {
        level: settings.level as pino.Level,
        stream: pino.destination({ dest: settings.file, mkdir: true, sync: true }),
      },
      {
        level: 'warn',
        stream: pretty({
          colorize: settings.terminal === undefined,
          translateTime: 'SYS:HH:MM:ss',
          ignore: 'pid,hostname',
          sync: true,
          ...(settings.terminal ? { destination: settings.terminal } : {}),
        }),
      },
    ]),
  );
}

/** A logger that discards everything: for tests and library callers that pass none. */
export const silentLogger: Logger = pino({ level: 'silent' });
