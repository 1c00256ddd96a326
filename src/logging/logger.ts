import pino, { type Logger, type LoggerOptions } from 'pino';

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
  '*.apiKey',
  '*.secret',
  '*.secrets',
  '*.webhookSecret',
  '*.webhookSecrets',
  '*.token',
  '*.password',
  '*.accountNumber',
  '*.authorization',
  'headers.authorization',
  'headers["service-signature"]',
  'req.headers.authorization',
  'req.headers["service-signature"]',
  'request.headers.authorization',
];

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

/** A logger that discards everything: for tests and library callers that pass none. */
export const silentLogger: Logger = pino({ level: 'silent' });
