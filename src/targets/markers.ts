// What ties a record at a target to a ledger entry: `booksync key=<key> hash=<contentHash>` written on the
// record (QBO: PrivateNote; Xero: Reference, Narration or a bill line's description), read back by find()
// to know the key and the contents it was made from.

export function marker(key: string, contentHash: string): string {
  return `booksync key=${key} hash=${contentHash}`;
}

/** Every marker in a text (a voided QBO payment carries its own and its reversal's). */
export function markersIn(note: unknown): { key: string; contentHash: string }[] {
  if (typeof note !== 'string') return [];
  return [...note.matchAll(/booksync key=(\S+) hash=(\S+)/g)].map((m) => ({
    key: m[1] ?? '',
    contentHash: m[2] ?? '',
  }));
}
