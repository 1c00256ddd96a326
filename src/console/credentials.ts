import { createHash, timingSafeEqual } from 'node:crypto';
import type { ConsoleRole } from './sessions.js';

// Who may sign in to the console, and as what: the accounts the operator configures, each with its own
// password. `bookkeeper` (CONSOLE_PASSWORD) may act (retry, close the books); `reader`
// (CONSOLE_READONLY_PASSWORD) sees every page and changes nothing. The command API key is not one of them: a
// key an integration holds does not open the console. A sign-in names its account; the password is compared
// with that account's alone, in constant time.

export interface ConsoleCredentials {
  password?: string | undefined;
  readonlyPassword?: string | undefined;
}

export interface ConsoleAccount {
  name: string;
  role: ConsoleRole;
  credential: 'console password' | 'read-only password';
  secret: string;
}

/** The accounts configured, in the order the sign-in form offers them. */
export function consoleAccounts(credentials: ConsoleCredentials): ConsoleAccount[] {
  const accounts: (Omit<ConsoleAccount, 'secret'> & { secret: string | undefined })[] = [
    { name: 'bookkeeper', role: 'bookkeeper', credential: 'console password', secret: credentials.password },
    {
      name: 'reader',
      role: 'read-only',
      credential: 'read-only password',
      secret: credentials.readonlyPassword,
    },
  ];
  return accounts.filter((a): a is ConsoleAccount => a.secret !== undefined && a.secret !== '');
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The account `given` is the password of, when `name` is a configured account and `given` its password. */
export function signInAs(
  accounts: readonly ConsoleAccount[],
  name: string,
  given: string,
): ConsoleAccount | null {
  const account = accounts.find((a) => a.name === name);
  if (!account || given === '') return null;
  return timingSafeEqual(digest(account.secret), digest(given)) ? account : null;
}

/** What the audit log says signed in: the account and its credential. */
export const whoIs = (account: ConsoleAccount) => `${account.name} (${account.credential})`;
