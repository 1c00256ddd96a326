import type { OAuthConnection, OAuthConnectionStore } from './connection-store.js';
import { reconnectCommand } from './token-store.js';

// A refresh token's hard expiry (QuickBooks: Intuit's five-year limit, `x_refresh_token_hard_expires_in`,
// kept with the connection): refreshing does not extend it, so the connection dies on that day unless the
// company is connected again. `booksync targets status` and the console warn from HARD_EXPIRY_WARNING_DAYS
// before it.

/** How long before the hard expiry people are warned. */
export const HARD_EXPIRY_WARNING_DAYS = 14;

const DAY_MS = 86_400_000;

/**
 * The warning for a connection whose refresh token hard-expires within `days` (or has), null otherwise (no
 * hard expiry known, or later). Names the company, the time and the command that reconnects; never a token.
 */
export function hardExpiryWarning(
  target: string,
  connection: OAuthConnection | null,
  now: number = Date.now(),
  days: number = HARD_EXPIRY_WARNING_DAYS,
): string | null {
  const at = connection?.refreshTokenHardExpiresAt;
  if (!connection || !at) return null;
  const left = Date.parse(at) - now;
  if (!(left <= days * DAY_MS)) return null;
  const company = `${target}: the connection to company ${connection.companyId}`;
  if (left <= 0) return `${company} stopped working at ${at}: ${reconnectCommand(target)}`;
  const daysLeft = Math.ceil(left / DAY_MS);
  return `${company} stops working at ${at} (in ${daysLeft} days), however often it is used: ${reconnectCommand(target)} before then`;
}

/** hardExpiryWarning() of the connection a store holds (the file or PostgreSQL row the workers refresh). */
export async function connectionHardExpiryWarning(
  target: string,
  store: OAuthConnectionStore,
  now: number = Date.now(),
): Promise<string | null> {
  return hardExpiryWarning(target, await store.readConnection(), now);
}
