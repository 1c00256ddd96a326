import { OAuthConnectionFile } from '../oauth/connection-file.js';

// What `booksync targets connect quickbooks` leaves behind: the company (realm) and the sealed refresh
// token, in the shared connection file format (../oauth/connection-file.ts) with the id as `realmId`.

export interface QuickBooksConnection {
  realmId: string;
  refreshToken: string;
  connectedAt: string;
}

export class QuickBooksConnectionFile extends OAuthConnectionFile {
  constructor(file: string) {
    super(file, 'realmId', 'QuickBooks');
  }

  async read(): Promise<QuickBooksConnection | null> {
    const connection = await this.readConnection();
    return connection && { ...connection, realmId: connection.companyId };
  }

  async write(connection: QuickBooksConnection): Promise<void> {
    await this.writeConnection({ ...connection, companyId: connection.realmId });
  }
}
