import { OAuthConnectionFile } from '../oauth/connection-file.js';

// What `booksync targets connect xero` leaves behind: the organisation (tenantId) and the sealed refresh
// token, mode 0600, replaced atomically (../oauth/connection-file.ts).

export class XeroConnectionFile extends OAuthConnectionFile {
  constructor(file: string) {
    super(file, 'tenantId', 'Xero');
  }
}
