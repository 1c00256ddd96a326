import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { SealedTokenStorage } from './token-store.js';

// What `booksync targets connect <target>` leaves behind: the company it connected (QBO's realmId, Xero's
// tenantId) and the refresh token, sealed (token-cipher.ts). One small JSON file, mode 0600, replaced
// atomically, so a crash while the target rotates the token never leaves half a token and a rotated token
// keeps its company.

export interface OAuthConnection {
  companyId: string;
  refreshToken: string;
  connectedAt: string;
}

export class OAuthConnectionFile {
  private readonly shape: z.ZodType<Record<string, string>>;

  /** `idField`: the name the company's id has in the file (`realmId`, `tenantId`). */
  constructor(
    readonly file: string,
    private readonly idField: string,
    private readonly label: string,
  ) {
    this.shape = z.object({
      [idField]: z.string().min(1),
      refreshToken: z.string().min(1),
      connectedAt: z.string(),
    }) as unknown as z.ZodType<Record<string, string>>;
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
    const { refreshToken, connectedAt } = parsed.data;
    return {
      companyId: parsed.data[this.idField] as string,
      refreshToken: refreshToken as string,
      connectedAt: connectedAt as string,
    };
  }

  async writeConnection(connection: OAuthConnection): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temporary = `${this.file}.${process.pid}.tmp`;
    const body = {
      [this.idField]: connection.companyId,
      refreshToken: connection.refreshToken,
      connectedAt: connection.connectedAt,
    };
    await writeFile(temporary, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
    await chmod(temporary, 0o600);
    await rename(temporary, this.file);
  }

  /** The token storage of one company: a token saved here keeps that company. */
  storage(companyId: string): SealedTokenStorage {
    return {
      load: async () => {
        const connection = await this.readConnection();
        return connection?.companyId === companyId ? connection.refreshToken : null;
      },
      save: async (sealed) => {
        const previous = await this.readConnection();
        await this.writeConnection({
          companyId,
          refreshToken: sealed,
          connectedAt: previous?.companyId === companyId ? previous.connectedAt : new Date().toISOString(),
        });
      },
    };
  }
}
