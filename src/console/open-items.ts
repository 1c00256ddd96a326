import type { LedgerPort } from '../ledger/ledger-port.js';
import type { ReferenceData } from '../targets/documents.js';
import { type AgedItem, aged, documentDate, type Side } from './aging.js';

// The open items the Receivables and payables page shows: the ledger's open items (what `booksync ledger
// receivables|payables` prints) that still owe something, each dated by its document's entry and named by
// the service when it can say.

async function named<T>(load: (() => Promise<T>) | undefined): Promise<T | null> {
  try {
    return load ? await load() : null;
  } catch {
    return null; // the service unreachable, or the object gone: the id still says which it is
  }
}

export async function openItemsAged(
  ledger: LedgerPort,
  side: Side,
  today: string,
  references?: ReferenceData,
): Promise<AgedItem[]> {
  const items = (await ledger.openItems(side)).filter((item) => item.openCents !== 0);
  const result: AgedItem[] = [];
  // A few at a time: the service is asked for names, the ledger for each document's entries.
  for (let i = 0; i < items.length; i += 8) {
    const batch = items.slice(i, i + 8);
    result.push(
      ...(await Promise.all(
        batch.map(async (item) => {
          const id = item.documentId;
          const entries =
            id === null
              ? []
              : await ledger.entriesFor(side === 'receivable' ? { paymentLinkId: id } : { billId: id });
          const documentName =
            id === null
              ? null
              : side === 'receivable'
                ? ((await named(references && (() => references.paymentLink(id))))?.name ?? null)
                : ((await named(references && (() => references.bill(id))))?.invoiceNumber ?? null);
          const party = item.counterpartyId;
          const counterpartyName =
            party === null
              ? null
              : ((
                  await named(
                    references &&
                      (() => (side === 'receivable' ? references.customer(party) : references.vendor(party))),
                  )
                )?.name ?? null);
          return aged(item, documentDate(entries, side), today, { documentName, counterpartyName });
        }),
      )),
    );
  }
  return result;
}
