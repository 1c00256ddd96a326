import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../../src/logging/logger.js';

/** Collects pino JSON lines in memory, each prefixed by the part that wrote it, so tests can grep them. */
export class LogCapture {
  readonly lines: string[] = [];
  stream(source: string): Writable {
    return new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        for (const line of chunk.toString().split('\n'))
          if (line.trim()) this.lines.push(`${source} ${line}`);
        done();
      },
    });
  }
  logger(source: string, level = 'debug'): Logger {
    return createLogger({ level, format: 'json', name: source }, this.stream(source));
  }
  text(): string {
    return this.lines.join('\n');
  }
  /** The last `n` lines of one source. */
  tail(source: string, n = 30): string {
    return this.lines
      .filter((l) => l.startsWith(`${source} `))
      .slice(-n)
      .join('\n');
  }
}
