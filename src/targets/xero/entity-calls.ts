import { TargetConflictError, TargetRefusedError } from '../errors.js';
import { afterRefusals } from '../request-keys.js';
import type { PushContext, PushResult, TargetDocument } from '../target-port.js';
import type { XeroContext } from './context.js';
import { idempotencyKey } from './keys.js';
import { type Body, idOf, itemErrors, markOf, type XeroEntity } from './records.js';

// Xero's calls per entity through the SDK: query by `where`, read one by id, create in batches, cancel.

export async function query(ctx: XeroContext, entity: XeroEntity, where: string): Promise<Body[]> {
  const c = ctx.client;
  switch (entity) {
    case 'Invoice':
      return (
        (
          await c.call('getInvoices', (api, t) =>
            api.getInvoices(t, undefined, where, undefined, undefined, undefined, undefined, undefined, 1),
          )
        ).invoices ?? []
      );
    case 'CreditNote':
      return (
        (await c.call('getCreditNotes', (api, t) => api.getCreditNotes(t, undefined, where))).creditNotes ??
        []
      );
    case 'Payment':
      return (await c.call('getPayments', (api, t) => api.getPayments(t, undefined, where))).payments ?? [];
    case 'BankTransaction':
      return (
        (await c.call('getBankTransactions', (api, t) => api.getBankTransactions(t, undefined, where)))
          .bankTransactions ?? []
      );
    case 'BankTransfer':
      return (
        (await c.call('getBankTransfers', (api, t) => api.getBankTransfers(t, undefined, where)))
          .bankTransfers ?? []
      );
    case 'ManualJournal':
      return (
        (await c.call('getManualJournals', (api, t) => api.getManualJournals(t, undefined, where)))
          .manualJournals ?? []
      );
  }
}

export async function read(ctx: XeroContext, entity: XeroEntity, id: string): Promise<Body | null> {
  const c = ctx.client;
  const one = async (call: Promise<Body[] | undefined>) => (await call)?.[0] ?? null;
  switch (entity) {
    case 'Invoice':
      return one(c.call('getInvoice', (api, t) => api.getInvoice(t, id)).then((b) => b.invoices));
    case 'CreditNote':
      return one(c.call('getCreditNote', (api, t) => api.getCreditNote(t, id)).then((b) => b.creditNotes));
    case 'Payment':
      return one(c.call('getPayment', (api, t) => api.getPayment(t, id)).then((b) => b.payments));
    case 'BankTransaction':
      return one(
        c
          .call('getBankTransaction', (api, t) => api.getBankTransaction(t, id))
          .then((b) => b.bankTransactions),
      );
    case 'BankTransfer':
      return one(
        c.call('getBankTransfer', (api, t) => api.getBankTransfer(t, id)).then((b) => b.bankTransfers),
      );
    case 'ManualJournal':
      return one(
        c.call('getManualJournal', (api, t) => api.getManualJournal(t, id)).then((b) => b.manualJournals),
      );
  }
}

/**
 * Creates documents of one entity, as many as Xero takes in one request (bank transfers one by one), with
 * an Idempotency-Key derived from the documents and their bodies. Each outcome is the document's
 * PushResult, its refusal (Xero's validation errors of that item), or a conflict when a replayed answer
 * holds other contents. An outage throws.
 */
export async function create(
  ctx: XeroContext,
  entity: XeroEntity,
  items: { doc: TargetDocument; body: Body }[],
  context: PushContext,
): Promise<(PushResult | Error)[]> {
  const key = idempotencyKey(
    ctx.client.tenantId,
    items.map((i) => afterRefusals(i.doc.key, context.refusals(i.doc.key))).join('\n'),
    `create ${entity}`,
    items.map((i) => i.body),
  );
  const bodies = items.map((i) => i.body);
  const c = ctx.client;
  let records: Body[];
  switch (entity) {
    case 'Invoice':
      records =
        (
          await c.call('createInvoices', (api, t) =>
            api.createInvoices(t, { invoices: bodies }, false, undefined, key),
          )
        ).invoices ?? [];
      break;
    case 'CreditNote':
      records =
        (
          await c.call('createCreditNotes', (api, t) =>
            api.createCreditNotes(t, { creditNotes: bodies }, false, undefined, key),
          )
        ).creditNotes ?? [];
      break;
    case 'Payment':
      records =
        (await c.call('createPayments', (api, t) => api.createPayments(t, { payments: bodies }, false, key)))
          .payments ?? [];
      break;
    case 'BankTransaction':
      records =
        (
          await c.call('createBankTransactions', (api, t) =>
            api.createBankTransactions(t, { bankTransactions: bodies as never }, false, undefined, key),
          )
        ).bankTransactions ?? [];
      break;
    case 'ManualJournal':
      records =
        (
          await c.call('createManualJournals', (api, t) =>
            api.createManualJournals(t, { manualJournals: bodies as never }, false, key),
          )
        ).manualJournals ?? [];
      break;
    case 'BankTransfer':
      records =
        (
          await c.call('createBankTransfer', (api, t) =>
            api.createBankTransfer(t, { bankTransfers: bodies as never }, key),
          )
        ).bankTransfers ?? [];
      break;
  }
  return items.map(({ doc }, j) => {
    const record = records[j];
    const errors = itemErrors(record);
    if (!record || errors.length > 0 || !idOf(entity, record))
      return new TargetRefusedError(
        ctx.name,
        `ValidationException: ${errors.join('; ') || `${entity} not created`}`,
      );
    const stored = markOf(entity, record, doc.key);
    if (stored && stored.contentHash !== doc.contentHash)
      return new TargetConflictError(ctx.name, doc.key, stored.contentHash, doc.contentHash);
    ctx.logger?.info({ key: doc.key, entity, id: idOf(entity, record) }, 'pushed to xero');
    return {
      key: doc.key,
      remoteIds: [`${entity}:${idOf(entity, record)}`],
      contentHash: doc.contentHash,
      created: true,
    };
  });
}

export async function cancel(
  ctx: XeroContext,
  doc: TargetDocument,
  entity: XeroEntity,
  id: string,
  current: Body,
): Promise<void> {
  const key = (body: unknown) => idempotencyKey(ctx.client.tenantId, doc.key, `cancel ${entity} ${id}`, body);
  const c = ctx.client;
  switch (entity) {
    case 'Payment': {
      const body = { status: 'DELETED' };
      await c.call('deletePayment', (api, t) => api.deletePayment(t, id, body, key(body)));
      break;
    }
    case 'Invoice': {
      const body = { invoices: [{ status: 'VOIDED' }] };
      await c.call('updateInvoice', (api, t) =>
        api.updateInvoice(t, id, body as never, undefined, key(body)),
      );
      break;
    }
    case 'CreditNote': {
      const body = { creditNotes: [{ status: 'VOIDED' }] };
      await c.call('updateCreditNote', (api, t) =>
        api.updateCreditNote(t, id, body as never, undefined, key(body)),
      );
      break;
    }
    case 'BankTransaction': {
      const body = {
        bankTransactions: [
          {
            type: current.type,
            bankAccount: { accountID: current.bankAccount?.accountID },
            lineItems: (current.lineItems ?? []).map((l: Body) => ({
              description: l.description,
              quantity: l.quantity,
              unitAmount: l.unitAmount,
              accountCode: l.accountCode,
            })),
            status: 'DELETED',
          },
        ],
      };
      await c.call('updateBankTransaction', (api, t) =>
        api.updateBankTransaction(t, id, body as never, undefined, key(body)),
      );
      break;
    }
    case 'BankTransfer': {
      const body = { status: 'DELETED' };
      await c.call('deleteBankTransfer', (api, t) => api.deleteBankTransfer(t, id, body, key(body)));
      break;
    }
    case 'ManualJournal': {
      const body = { manualJournals: [{ narration: current.narration, status: 'VOIDED' }] };
      await c.call('updateManualJournal', (api, t) =>
        api.updateManualJournal(t, id, body as never, key(body)),
      );
      break;
    }
  }
}
