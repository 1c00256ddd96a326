import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { CommandApiClient, CommandApiError, type CommandApiTarget } from '../command-api/client.js';
import type { Settings } from '../config/settings.js';
import { ObjectId } from '../ingress/object-id.js';
import { readEmbeddedCommandApiKey } from '../runtime/command-api-key.js';
import { CommandError } from './command.js';

// What `booksync deposit` and `booksync link` share: where the command API is, its key, the typed client
// with refusals as one clear line, and argument parsing validated with zod.

/**
 * OPS_HOST:OPS_PORT when the command API has its own listener, else INGRESS_PUBLIC_URL (or
 * INGRESS_HOST:INGRESS_PORT); and COMMAND_API_KEY, else the embedded stack's stored key.
 */
export function commandApiTarget(settings: Settings): CommandApiTarget {
  const reachable = (host: string) => (host === '0.0.0.0' ? '127.0.0.1' : host);
  const baseUrl = (
    settings.OPS_PORT !== undefined
      ? `http://${reachable(settings.OPS_HOST)}:${settings.OPS_PORT}`
      : (settings.INGRESS_PUBLIC_URL ?? `http://${reachable(settings.INGRESS_HOST)}:${settings.INGRESS_PORT}`)
  ).replace(/\/$/, '');
  const apiKey =
    settings.COMMAND_API_KEY ?? readEmbeddedCommandApiKey(path.resolve(settings.BOOKSYNC_DATA_DIR));
  if (!apiKey) {
    throw new CommandError(
      `COMMAND_API_KEY: not set, and no embedded-credentials.json with a command API key in ${settings.BOOKSYNC_DATA_DIR} (run 'booksync start' first, or set it)`,
    );
  }
  return { baseUrl, apiKey };
}

/** The command API's client for the CLI: a refusal or no answer becomes one CommandError line. */
export async function sendCommand<T>(
  send: (client: CommandApiClient) => Promise<T>,
  settings: Settings,
): Promise<T> {
  try {
    return await send(new CommandApiClient(commandApiTarget(settings)));
  } catch (error) {
    if (!(error instanceof CommandApiError)) throw error;
    const code = error.code ? ` (${error.code})` : '';
    const answered = error.status === null ? '' : `command API answered ${error.status}: `;
    // A failure that may have gone through: the same key makes the retry the same command.
    const retry = error.idempotencyKey
      ? `; it may have gone through: retry with --idempotency-key ${error.idempotencyKey}`
      : '';
    throw new CommandError(`${answered}${error.message}${code}${retry}`);
  }
}

export const cents = z
  .string()
  .regex(/^[1-9]\d*$/, 'a whole number of cents, at least 1')
  .transform(Number)
  .refine(Number.isSafeInteger, 'too large');
export const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date YYYY-MM-DD');
/** The command API's own rule, so the CLI refuses locally exactly what the API would refuse. */
export const objectId = ObjectId;

type Options = NonNullable<Parameters<typeof parseArgs>[0]>['options'];

/** Parses `args` (subcommand first) strictly; a problem becomes one CommandError line naming the usage. */
export function parseCommandArgs(
  args: string[],
  options: Options,
  usage: string,
): { positionals: string[]; values: Record<string, string | boolean | undefined> } {
  try {
    const parsed = parseArgs({
      args,
      options: { ...options, 'idempotency-key': { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
    return {
      positionals: parsed.positionals,
      values: parsed.values as Record<string, string | boolean | undefined>,
    };
  } catch (error) {
    throw new CommandError(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
  }
}

/** zod parse of one argument, with the argument's name in the one-line error. */
export function argument<T extends z.ZodType>(schema: T, value: unknown, name: string): z.infer<T> {
  if (value === undefined) throw new CommandError(`${name}: required`);
  const result = schema.safeParse(value);
  if (!result.success) throw new CommandError(`${name}: ${result.error.issues[0]?.message ?? 'invalid'}`);
  return result.data;
}
