import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The vendors' published contracts the QuickBooks and Xero doubles are held to (Intuit's XSDs, Xero's
// OpenAPI). They are not part of the repository: they are read where the project's shared folder puts them,
// never copied in. Looked for in order: BOOKSYNC_CONTRACTS_DIR, ../shared/contracts beside the clone, then
// ~/.cache/booksync/contracts (a copy a developer placed there). Without any, the tests that need them are
// left out with one line saying so (vitest.config.ts), and fail under CI.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** What each vendor's contract is, under a contracts folder. */
export const vendorContractFiles = {
  quickbooks: path.join('quickbooks-online', 'xsd', 'Finance.xsd'),
  xero: path.join('xero', 'xero_accounting.yaml'),
} as const;

export function contractsDirCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  return [
    ...(env.BOOKSYNC_CONTRACTS_DIR ? [env.BOOKSYNC_CONTRACTS_DIR] : []),
    path.join(root, '..', 'shared', 'contracts'),
    path.join(homedir(), '.cache', 'booksync', 'contracts'),
  ];
}

/** The first folder holding both vendors' contracts, or null. */
export function findContractsDir(env: NodeJS.ProcessEnv = process.env): string | null {
  return (
    contractsDirCandidates(env).find((dir) =>
      Object.values(vendorContractFiles).every((file) => existsSync(path.join(dir, file))),
    ) ?? null
  );
}

/** The contracts folder; throws with where it looked when there is none. */
export function contractsDir(): string {
  const found = findContractsDir();
  if (found) return found;
  throw new Error(
    `the vendors' published contracts are not here: looked in ${contractsDirCandidates().join(', ')} (set BOOKSYNC_CONTRACTS_DIR to a folder holding quickbooks-online/xsd/ and xero/xero_accounting.yaml)`,
  );
}
