import type { SealedTokenStorage } from '../../src/targets/oauth/connection-store.js';

/**
 * A connection's refresh token sealed at rest as booksync keeps it, but in memory instead of the connection
 * file: for the targets' tests, sandbox runs and push benches. `sealed` is the latest the target saved (an
 * OAuth provider rotates the refresh token on every refresh).
 */
export class SealedTokenInMemory implements SealedTokenStorage {
  public sealed: string | null;
  constructor(sealed: string | null) {
    this.sealed = sealed;
  }

  async load(): Promise<string | null> {
    return this.sealed;
  }

  async save(sealed: string): Promise<void> {
    this.sealed = sealed;
  }
}
