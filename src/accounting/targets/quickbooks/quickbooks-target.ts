import type { Logger } from 'pino';
import { baseKey, isReversalKey, keyPrefix, keyVersion } from '../../entry-key.js';
import type { AccountMapping } from '../account-mapping.js';
import { TargetConfigurationError, TargetConflictError, TargetRefusedError } from '../errors.js';
import type {
  AccountingTarget,
  PushContext,
  PushResult,
  RemoteRecord,
  TargetDocument,
} from '../target-port.js';
import { AccountDirectory, type Ref } from './accounts.js';
import { DocumentMapper, invoiceNumber, type Plan, pairOf } from './documents.js';
import { isStaleObject } from './faults.js';
import { QboClient, type QboEntity } from './http-client.js';
import { ItemDirectory } from './items.js';
import { createRequestId, docNumberTag, marker, markersIn, requestIdFor } from './keys.js';
import { type RealmLimiter, realmLimiter } from './limiter.js';
import { type MatchingPolicy, PartyDirectory } from './parties.js';
import type { OAuthTokenStore } from './token-store.js';

// QuickBooks Online behind the accounting-target port. Idempotency: every create carries a requestid derived
// from the entry key (QBO replays the first result for it), and push() first looks the key up at QBO, so a
// crash between a create and the index write finds the record instead of making a second one.
//
// Finding a key (find): documents booksync numbers itself carry the key's DocNumber tag and are found with
// `select * from <Entity> where DocNumber = '<tag>'`; invoices and bills carry their own number (link name,
// vendor's invoice number) and are found by the marker at the start of PrivateNote
// (`PrivateNote LIKE 'booksync key=<key> hash=%'`). The content hash is read back from the marker. A voided
// payment or bill payment keeps its own marker and gains its reversal's, so both keys stay findable.
//
// remoteIds are `<Entity>:<Id>` (`void:<Entity>:<Id>` for a void), so later documents know what to link to.

export interface QuickBooksTargetOptions {
  baseUrl: string;
  realmId: string;
  tokenStore: OAuthTokenStore;
  accounts: AccountMapping;
  matching: MatchingPolicy;
  logger?: Logger;
  /** Defaults to the worker-wide limiter of the realm. */
  limiter?: RealmLimiter;
}

const entityByKind: Record<string, string> = {
  invoice: 'Invoice',
  'debit-memo': 'Invoice',
  payment: 'Payment',
  'external-payment': 'Payment',
  'check-application': 'Payment',
  refund: 'RefundReceipt',
  'disbursement-pending': 'Deposit',
  'disbursement-paid': 'Deposit',
  'check-cleared': 'Deposit',
  bill: 'Bill',
  'bill-payment-sent': 'BillPayment',
};

/** QBO's own cancel: a voided invoice (nothing applied to it) or payment stays, with its amounts zeroed. */
const voidable = new Set(['Invoice', 'Payment', 'BillPayment']);
/** Documents with their own number, found by the PrivateNote marker instead of the DocNumber tag. */
const ownNumber = new Set(['invoice', 'bill']);

function parseRemoteId(remoteId: string | undefined): { entity: string; id: string } | null {
  const parts = (remoteId ?? '').split(':');
  if (parts.length === 2 && parts[0] && parts[1]) return { entity: parts[0], id: parts[1] };
  return null;
}

export class QuickBooksTarget implements AccountingTarget {
  readonly name = 'quickbooks';
  private readonly client: QboClient;
  private readonly accounts: AccountDirectory;
  private readonly parties: PartyDirectory;
  private readonly mapper: DocumentMapper;

  constructor(private readonly options: QuickBooksTargetOptions) {
    this.client = new QboClient({
      baseUrl: options.baseUrl,
      realmId: options.realmId,
      tokens: options.tokenStore,
      limiter: options.limiter ?? realmLimiter(options.realmId),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    this.accounts = new AccountDirectory(this.client, options.accounts);
    this.parties = new PartyDirectory(this.client, options.matching);
    this.mapper = new DocumentMapper(
      this.accounts,
      new ItemDirectory(this.client, this.accounts),
      this.parties,
    );
  }

  async verify(): Promise<void> {
    let problems: string[];
    try {
      problems = await this.accounts.problems();
    } catch (error) {
      problems = [`cannot reach QuickBooks company ${this.options.realmId}: ${(error as Error).message}`];
    }
    if (problems.length > 0) throw new TargetConfigurationError(this.name, problems);
  }

  async push(document: TargetDocument, context: PushContext): Promise<PushResult> {
    if (document.kind === 'reversal') {
      const existing = await this.find(document.key);
      return existing ? this.already(existing, document) : this.reverse(document, context);
    }
    // Looked up where the document goes, so the common push costs one query before its create (QBO's
    // 500 requests a minute are the bottleneck); a journal fallback is looked up when the plan says so.
    const primary = this.entityOf(document.key);
    const existing = await this.findIn(primary, document.key);
    if (existing) return this.already(existing, document);
    const plan = await this.plan(document, context);
    if ('found' in plan) return plan.found;
    if (plan.entity !== primary) {
      const fallback = await this.findIn(plan.entity, document.key);
      if (fallback) return this.already(fallback, document);
    }
    const created = await this.client.write(plan.entity, plan.body, {
      requestid: createRequestId(document.key, plan.body),
    });
    // A replayed requestid answers with the first create's record: if that had other contents, say so.
    const stored = markersIn(created.PrivateNote).find((m) => m.key === document.key);
    if (stored && stored.contentHash !== document.contentHash) {
      throw new TargetConflictError(this.name, document.key, stored.contentHash, document.contentHash);
    }
    this.options.logger?.info(
      { key: document.key, entity: plan.entity, id: created.Id },
      'pushed to quickbooks',
    );
    return {
      key: document.key,
      remoteIds: [`${plan.entity}:${created.Id}`],
      contentHash: document.contentHash,
      created: true,
    };
  }

  async find(key: string): Promise<RemoteRecord | null> {
    if (isReversalKey(key)) {
      const original = key.slice('reversal:'.length);
      const entity = this.entityOf(original);
      if (voidable.has(entity)) {
        const record = await this.lookup(entity, original);
        const mark = record && markersIn(record.PrivateNote).find((m) => m.key === key);
        if (record && mark)
          return { key, remoteIds: [`void:${entity}:${record.Id}`], contentHash: mark.contentHash };
      }
    }
    const entity = this.entityOf(key);
    return (
      (await this.findIn(entity, key)) ??
      (entity === 'JournalEntry' ? null : this.findIn('JournalEntry', key))
    );
  }

  private async findIn(entity: string, key: string): Promise<RemoteRecord | null> {
    const record = await this.lookup(entity, key);
    const mark = record && markersIn(record.PrivateNote).find((m) => m.key === key);
    return record && mark
      ? { key, remoteIds: [`${entity}:${record.Id}`], contentHash: mark.contentHash }
      : null;
  }

  async close(): Promise<void> {}

  private entityOf(key: string): string {
    return entityByKind[keyPrefix(baseKey(key))] ?? 'JournalEntry';
  }

  private async lookup(entity: string, key: string): Promise<QboEntity | null> {
    const kind = keyPrefix(baseKey(key));
    const rows =
      entity !== 'JournalEntry' && ownNumber.has(kind)
        ? await this.client.selectLike(entity, 'PrivateNote', `${marker(key, '')}%`)
        : await this.client.select(entity, { DocNumber: docNumberTag(key) });
    return rows.find((r) => markersIn(r.PrivateNote).some((m) => m.key === key)) ?? null;
  }

  private already(existing: RemoteRecord, document: TargetDocument): PushResult {
    if (existing.contentHash !== document.contentHash) {
      throw new TargetConflictError(this.name, document.key, existing.contentHash, document.contentHash);
    }
    return { ...existing, created: false };
  }

  /** The remote record of an earlier document: the push's index first, QBO itself otherwise. */
  private async earlier(key: string, context: PushContext): Promise<{ entity: string; id: string } | null> {
    const record = context.pushed(key) ?? (await this.find(key));
    return parseRemoteId(record?.remoteIds[0]);
  }

  private async plan(doc: TargetDocument, context: PushContext): Promise<Plan | { found: PushResult }> {
    const pair = pairOf(doc.lines);
    switch (doc.kind) {
      case 'invoice': {
        // A link booked again after its reversal (`invoice:pl#2`) is a new invoice beside the voided one.
        const name = doc.invoice?.number ?? docNumberTag(doc.key);
        const version = keyVersion(doc.key);
        const number = invoiceNumber(version > 1 ? `${name}#${version}` : name);
        const adopted = await this.adoptInvoice(doc, number);
        if (adopted) return { found: adopted };
        return (await this.mapper.invoice(doc, number)) ?? this.mapper.journal(doc);
      }
      case 'debit-memo':
        return (await this.mapper.invoice(doc, docNumberTag(doc.key))) ?? this.mapper.journal(doc);
      case 'payment':
      case 'external-payment':
      case 'check-application': {
        if (pair?.credit !== 'AccountsReceivable' || !doc.invoice) return this.mapper.journal(doc);
        const invoice = await this.earlier(`invoice:${doc.invoice.paymentLinkId}`, context);
        if (invoice?.entity !== 'Invoice') return this.mapper.journal(doc);
        return this.mapper.payment(doc, pair, invoice.id, await this.customerOf(invoice.id));
      }
      case 'refund': {
        if (!pair) return this.mapper.journal(doc);
        const invoice = doc.invoice
          ? await this.earlier(`invoice:${doc.invoice.paymentLinkId}`, context)
          : null;
        const customer =
          invoice?.entity === 'Invoice'
            ? await this.customerOf(invoice.id)
            : doc.customer
              ? await this.parties.ref('Customer', doc.customer)
              : null;
        return customer ? this.mapper.refund(doc, pair, customer) : this.mapper.journal(doc);
      }
      case 'disbursement-pending':
      case 'disbursement-paid':
      case 'check-cleared':
        return pair ? this.mapper.deposit(doc, pair) : this.mapper.journal(doc);
      case 'bill': {
        if (pair?.credit !== 'AccountsPayable') return this.mapper.journal(doc);
        if (!doc.vendor) throw new TargetRefusedError(this.name, `bill ${doc.key} has no vendor`);
        return this.mapper.bill(doc, pair, doc.vendor);
      }
      case 'bill-payment-sent': {
        if (pair?.debit !== 'AccountsPayable' || !doc.bill) return this.mapper.journal(doc);
        const bill = await this.earlier(`bill:${doc.bill.billId}`, context);
        if (bill?.entity !== 'Bill') return this.mapper.journal(doc);
        const read = await this.client.read('Bill', bill.id);
        return this.mapper.billPayment(doc, pair, bill.id, read.VendorRef as Ref);
      }
      default:
        return this.mapper.journal(doc);
    }
  }

  /** The invoice's own customer, so a payment is never applied under a customer guessed again. */
  private async customerOf(invoiceId: string): Promise<Ref> {
    const invoice = await this.client.read('Invoice', invoiceId);
    return invoice.CustomerRef as Ref;
  }

  /**
   * An invoice with the link's number already in QBO and no booksync marker: adopted under 'match-existing'
   * (the marker is added by a sparse update), refused under 'create'.
   */
  private async adoptInvoice(doc: TargetDocument, number: string): Promise<PushResult | null> {
    const [existing] = await this.client.select('Invoice', { DocNumber: number });
    if (!existing) return null;
    const owner = markersIn(existing.PrivateNote)[0];
    if (owner) {
      throw new TargetRefusedError(
        this.name,
        `invoice number ${number} is already booksync's ${owner.key} (QuickBooks Id ${existing.Id})`,
      );
    }
    if (this.options.matching !== 'match-existing') {
      throw new TargetRefusedError(
        this.name,
        `invoice number ${number} already exists in QuickBooks (Id ${existing.Id}); matching policy 'create' does not adopt it`,
      );
    }
    const mark = marker(doc.key, doc.contentHash);
    const updated = await this.withFreshSyncToken(
      'Invoice',
      existing.Id,
      (current) => ({
        Id: current.Id,
        SyncToken: current.SyncToken,
        sparse: true,
        PrivateNote:
          typeof current.PrivateNote === 'string' && current.PrivateNote
            ? `${mark}\n${current.PrivateNote}`
            : mark,
      }),
      'update',
      doc.key,
    );
    return {
      key: doc.key,
      remoteIds: [`Invoice:${updated.Id}`],
      contentHash: doc.contentHash,
      created: false,
    };
  }

  /**
   * An invoice, payment or bill payment is voided (a voided payment's invoice or bill is open again); anything
   * else gets a reversing journal.
   */
  private async reverse(doc: TargetDocument, context: PushContext): Promise<PushResult> {
    const original = doc.reverses ? await this.earlier(doc.reverses, context) : null;
    if (!original) {
      throw new TargetRefusedError(
        this.name,
        `nothing to reverse: ${doc.reverses ?? '(no key)'} is not in QuickBooks`,
      );
    }
    if (voidable.has(original.entity)) {
      const mark = marker(doc.key, doc.contentHash);
      await this.withFreshSyncToken(
        original.entity,
        original.id,
        (current) => ({
          Id: current.Id,
          SyncToken: current.SyncToken,
          sparse: true,
          PrivateNote:
            `${typeof current.PrivateNote === 'string' ? current.PrivateNote : ''}\n${mark}`.trim(),
        }),
        'void',
        doc.key,
      );
      return {
        key: doc.key,
        remoteIds: [`void:${original.entity}:${original.id}`],
        contentHash: doc.contentHash,
        created: true,
      };
    }
    const plan = await this.mapper.journal(
      doc,
      `reverses ${doc.reverses} (${original.entity} ${original.id})`,
    );
    const created = await this.client.write(plan.entity, plan.body, {
      requestid: createRequestId(doc.key, plan.body),
    });
    return {
      key: doc.key,
      remoteIds: [`JournalEntry:${created.Id}`],
      contentHash: doc.contentHash,
      created: true,
    };
  }

  /** Updates with the record's current SyncToken; a stale one (someone edited it meanwhile) is re-read and retried. */
  private async withFreshSyncToken(
    entity: string,
    id: string,
    body: (current: QboEntity) => Record<string, unknown>,
    operation: 'update' | 'void',
    key: string,
  ): Promise<QboEntity> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.client.read(entity, id);
      try {
        // The requestid includes the SyncToken read: a replay after a lost answer is the same write, a
        // retry after a stale token is a new one.
        return await this.client.write(entity, body(current), {
          operation,
          requestid: requestIdFor(`${key}@${current.SyncToken}`, operation),
        });
      } catch (error) {
        if (!isStaleObject(error) || attempt >= 3) throw error;
        this.options.logger?.info({ entity, id, attempt }, 'stale SyncToken, re-reading');
      }
    }
  }
}
