import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { SealedTokenStorage } from './token-store.js';

// What `booksync targets connect quickbooks` leaves behind: the company (realm) it connected and the
// refresh token, sealed (token-cipher.ts). One small JSON file, mode 0600, replaced atomically, so a crash
// while QBO rotates the token never leaves half a token and a rotated token keeps its company.

const connectionShape = z.object({
  realmId: z.string().min(1),
  refreshToken: z.string().min(1),
  connectedAt: z.string(),
});

export type QuickBooksConnection = z.infer<typeof connectionShape>;

export class QuickBooksConnectionFile {
  constructor(readonly file: string) {}

  async read(): Promise<QuickBooksConnection | null> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    const parsed = connectionShape.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`${this.file} is not a QuickBooks connection booksync wrote`);
    return parsed.data;
  }

  async write(connection: QuickBooksConnection): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temporary = `${this.file}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(connection, null, 2)}\n`, { mode: 0o600 });
    await chmod(temporary, 0o600);
    await rename(temporary, this.file);
  }

  /** The token storage of one company: a token saved here keeps that company. */
  storage(realmId: string): SealedTokenStorage {
    return {
      load: async () => {
        const connection = await this.read();
        return connection?.realmId === realmId ? connection.refreshToken : null;
      },
      save: async (sealed) => {
        const previous = await this.read();
        await this.write({
          realmId,
          refreshToken: sealed,
          connectedAt: previous?.realmId === realmId ? previous.connectedAt : new Date().toISOString(),
        });
      },
    };
  }
}
