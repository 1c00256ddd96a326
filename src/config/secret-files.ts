import { readSecretFile } from '@booksync/private-files';

// Secrets given as files: for every setting X holding a secret, X_FILE=/path reads X from that file (a
// container's secret mount, a file only the service user can read), so the secret is never in the environment
// of the process, its children or `docker inspect`. The file's trailing new lines are not part of the value;
// it must be a regular file no other user can read (readSecretFile); X and X_FILE together are an error.

/**
 * A setting that holds a secret, by its name: keys, secrets, tokens, passwords, and LEDGER_URL (its password).
 * Settings naming a file, a path or an endpoint (QBO_TOKEN_FILE, TEMPORAL_TLS_KEY_PATH, XERO_TOKEN_URL) are not.
 */
export function isSecretSetting(name: string): boolean {
  if (name === 'LEDGER_URL') return true;
  return !/_(FILE|PATH|URL|URI)$/.test(name) && /KEY|SECRET|TOKEN|PASSWORD/.test(name);
}

/** `X_FILE` for a secret setting X, else null. */
export function secretFileSetting(name: string): string | null {
  return isSecretSetting(name) ? `${name}_FILE` : null;
}

/**
 * The variables set (not empty) of `env`, every secret setting given as X_FILE read from its file.
 * `settings`: every setting's name. Throws one line naming the variable, never the value.
 */
export function withSecretFiles(env: NodeJS.ProcessEnv, settings: readonly string[]): Record<string, string> {
  const input = Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '',
    ),
  );
  const resolved = { ...input };
  for (const name of settings) {
    const fileSetting = secretFileSetting(name);
    const file = fileSetting === null ? undefined : input[fileSetting];
    if (file === undefined) continue;
    if (input[name] !== undefined) {
      throw new Error(`${name}: set ${name} or ${fileSetting}, not both`);
    }
    let text: string;
    try {
      text = readSecretFile(file);
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      throw new Error(`${fileSetting}: ${code ? `cannot read ${file} (${code})` : message}`);
    }
    const value = text.replace(/(\r?\n)+$/, '');
    if (value === '') throw new Error(`${fileSetting}: ${file} is empty`);
    resolved[name] = value;
  }
  return resolved;
}
