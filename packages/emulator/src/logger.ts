import pino, { type Logger } from 'pino';

export type { Logger };

/** Writes nothing: an emulator given no logger (a test's, the bench's) is silent. */
export const silentLogger: Logger = pino({ level: 'silent' });
