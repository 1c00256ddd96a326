import type { Harness } from '@booksync/emulator/harness';
import type { LedgerPort } from '../../src/ledger/ledger-port.js';
import { invoiceEntryToPost } from '../../src/ledger/mapping/invoice.js';
import { writtenOffCents } from '../../src/ledger/write-offs.js';

/** The link at the emulator, as the service answers it. */
export async function serviceLink(harness: Harness, id: string) {
  return (await harness.api('GET', `/paymentLink/${id}`)).body;
}

/**
 * What the link's flows would book now (its invoice, its lowering, what the live write-offs cover of it as
 * Bad Debt), posted: the entry, or null when nothing changed.
 */
export async function bookLink(
  harness: Harness,
  ledger: Pick<LedgerPort, 'entriesFor' | 'writeOffsFor' | 'post'>,
  linkId: string,
) {
  const entry = invoiceEntryToPost(
    await serviceLink(harness, linkId),
    await ledger.entriesFor({ paymentLinkId: linkId }),
    '2026-03-05',
    'UTC',
    0,
    writtenOffCents(await ledger.writeOffsFor(linkId)),
  );
  if (entry) await ledger.post(entry);
  return entry;
}
