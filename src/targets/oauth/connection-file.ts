import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { OAuthConnection, OAuthConnectionStore, SealedTokenStorage } from './connection-store.js';
import { type FileLockOptions, withFileLock } from './file-lock.js';

// What `booksync targets connect <target>` leaves behind when the ledger is not on PostgreSQL: the company it
// connected (QBO's realmId, Xero's tenantId) and the refresh token, sealed (token-cipher.ts). One small JSON
// file, mode 0600, replaced atomically through a temporary file of its own (pid and random: in containers
// sharing a volume every node is PID 1), so a crash while the target rotates the token never leaves half a
// token and a rotated token keeps its company. A refresh holds `<file>.lock` (file-lock.ts) from reading the
// token to saving the rotated one, so workers sharing the file never spend the same refresh token twice.

export type { OAuthConnection } from './connection-store.js';

export class OAuthConnectionFile implements OAuthConnectionStore {
  private readonly shape: z.ZodType<Record<string, string>>;

  readonly file: string;
  private readonly idField: string;
  private readonly label: string;
  private readonly lockOptions: FileLockOptions;
  /** `idField`: the name the company's id has in the file (`realmId`, `tenantId`). */
  constructor(file: string, idField: string, label: string, lockOptions: FileLockOptions = {}) {
    this.file = file;
    this.idField = idField;
    this.label = label;
    this.lockOptions = lockOptions;
    this.shape = z.object({
      [idField]: z.string().min(1),
      refreshToken: z.string().min(1),
      connectedAt: z.string(),
      refusedAt: z.string().optional(),
      refusedReason: z.string().optional(),
      refreshTokenHardExpiresAt: z.string().optional(),
    }) as unknown as z.ZodType<Record<string, string>>;
  }

  get where(): string {
    return this.file;
  }

  async readConnection(): Promise<OAuthConnection | null> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    const parsed = this.shape.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`${this.file} is not a ${this.label} connection booksync wrote`);
    const { refreshToken, connectedAt, refusedAt, refusedReason, refreshTokenHardExpiresAt } = parsed.data;
    return {
      companyId: parsed.data[this.idField] as string,
      refreshToken: refreshToken as string,
      connectedAt: connectedAt as string,
      ...(refusedAt ? { refused: { at: refusedAt, reason: refusedReason ?? 'refused' } } : {}),
      ...(refreshTokenHardExpiresAt ? { refreshTokenHardExpiresAt } : {}),
    };
  }

  async writeConnection(connection: OAuthConnection): Promise<void> {
    await this.exclusive(() => this.replace(connection));
  }

  /** The token storage of one company: a token saved here keeps that company. */
  storage(companyId: string): SealedTokenStorage {
    return {
      load: async () => {
        const connection = await this.readConnection();
        return connection?.companyId === companyId ? connection.refreshToken : null;
      },
      // Called by the token store inside exclusive(): the lock is already held.
      save: async (sealed, expiry) => {
        const previous = await this.readConnection();
        await this.replace({
          companyId,
          refreshToken: sealed,
          connectedAt: previous?.companyId === companyId ? previous.connectedAt : new Date().toISOString(),
          ...(expiry?.hardExpiresAt ? { refreshTokenHardExpiresAt: expiry.hardExpiresAt } : {}),
        });
      },
      exclusive: (work) => this.exclusive(work),
      // Called by the token store inside exclusive() too: kept only while the refused token is the stored one.
      refused: async (sealed, reason) => {
        const current = await this.readConnection();
        if (current?.companyId !== companyId || current.refreshToken !== sealed) return;
        await this.replace({ ...current, refused: { at: new Date().toISOString(), reason } });
      },
    };
  }

  private async exclusive<T>(work: () => Promise<T>): Promise<T> {
    await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    return withFileLock(`${this.file}.lock`, work, this.lockOptions);
  }

  private async replace(connection: OAuthConnection): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temporary = `${this.file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    const body = {
      [this.idField]: connection.companyId,
      refreshToken: connection.refreshToken,
      connectedAt: connection.connectedAt,
      // A stored token other than the refused one (a reconnect, a rotation) clears the refusal: save() and
      // writeConnection() pass none.
      ...(connection.refused
        ? { refusedAt: connection.refused.at, refusedReason: connection.refused.reason }
        : {}),
      ...(connection.refreshTokenHardExpiresAt
        ? { refreshTokenHardExpiresAt: connection.refreshTokenHardExpiresAt }
        : {}),
    };
    try {
      await writeFile(temporary, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      await chmod(temporary, 0o600);
      await rename(temporary, this.file);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }
}
