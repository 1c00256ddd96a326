import { laterOf } from '../closed-periods.js';
import { TargetRefusedError } from '../errors.js';
import type { TargetDocument } from '../target-port.js';
import { described, issuedToday, numberedBefore } from './helpers.js';
import { dateOf, isoDateOf, standardPeriod } from './json-rpc.js';
import type { TrytonSession } from './session.js';

// Periods and posting: the lock Tryton's closed periods set, a date's period, posting a created record (and
// the issue date Tryton numbers a customer invoice by), re-dating a draft a refused post left.

/** The end of Tryton's latest closed (or locked) period or fiscal year, read through the session's LockReader. */
export async function closedThrough(s: TrytonSession): Promise<string | null> {
  let latest: string | null = null;
  for (const model of ['account.period', 'account.fiscalyear']) {
    const [row] = await s.rpc.model<{ end_date: unknown }[]>(
      model,
      'search_read',
      [['state', 'in', ['closed', 'locked']]],
      0,
      1,
      [['end_date', 'DESC']],
      ['end_date'],
    );
    latest = laterOf(latest, row ? isoDateOf(row.end_date) : null);
  }
  return latest;
}

/** The standard period of a date's month, cached per month: a move names its period. */
export async function periodOf(s: TrytonSession, date: string): Promise<number> {
  const month = date.slice(0, 7);
  const cached = s.periods.get(month);
  if (cached !== undefined) return cached;
  const found = await standardPeriod(s.rpc, date);
  if (found === undefined)
    throw new TargetRefusedError(s.name, `no open fiscal period in Tryton for ${date}`);
  s.periods.set(month, found);
  return found;
}

/** A draft kept from a refused post takes the date the document has now (after a lock read since). */
export async function redate(
  s: TrytonSession,
  draft: { model: string; id: number },
  document: TargetDocument,
  /** The record's description: the document's marker (a credit note in parts adds which part). */
  description = described(document),
): Promise<void> {
  if (draft.model === 'account.move') {
    const [row] = await s.rpc.model<{ date: unknown }[]>('account.move', 'read', [draft.id], ['date']);
    if (row && isoDateOf(row.date) === document.date) return;
    await s.rpc.model('account.move', 'write', [draft.id], {
      date: dateOf(document.date),
      period: await periodOf(s, document.date),
      description,
    });
    return;
  }
  const [row] = await s.rpc.model<{ accounting_date: unknown }[]>(
    'account.invoice',
    'read',
    [draft.id],
    ['accounting_date'],
  );
  if (row && isoDateOf(row.accounting_date) === document.date) return;
  await s.rpc.model('account.invoice', 'write', [draft.id], {
    accounting_date: dateOf(document.date),
    description,
  });
}

/** How soon a posted customer invoice's report is asked for: within five minutes. */
const reportWithinSeconds = 300;

/**
 * Tryton's post of invoices or moves. Posting customer invoices queues the rendering of their report
 * (`Invoice._post`: `print_invoice`, about 250 ms an invoice here), by default as one task for all the
 * invoices of the call. Tryton's worker runs a task to its end and takes the next by when it is wanted
 * (`ir.queue.pull`: `scheduled_at`, then `expected_at`, none first), so the processing of a slice's
 * reconciliations (each invoice turning paid), which the push waits for, waited behind the whole slice's
 * reports. The post therefore asks for the reports in tasks of one invoice, to be finished within five
 * minutes, with the context keys Tryton's task queue documents for it (`queue_batch`, `queue_expected_at`;
 * https://docs.tryton.org/latest/server/topics/task_queue.html): every report is still rendered, between and
 * after the tasks wanted as soon as possible. Without a worker Tryton runs the tasks at the end of the
 * request, as before.
 */
export async function postRecords(s: TrytonSession, model: string, ids: number[]): Promise<void> {
  const context =
    model === 'account.invoice'
      ? { queue_expected_at: { __class__: 'timedelta', seconds: reportWithinSeconds }, queue_batch: 1 }
      : {};
  await s.rpc.call(`model.${model}.post`, [ids], context);
}

/**
 * Posts a created invoice or move (Tryton checks balance and the period here, and numbers a customer
 * invoice). A customer invoice refused for its issue date (another worker issued a later one since this
 * one read the last date) is issued on the latest day Tryton holds, then posted.
 */
export async function post(
  s: TrytonSession,
  document: TargetDocument,
  record: { model: string; id: number },
): Promise<void> {
  try {
    await postRecords(s, record.model, [record.id]);
  } catch (error) {
    if (
      record.model !== 'account.invoice' ||
      !(error instanceof TargetRefusedError && numberedBefore.test(error.targetMessage))
    )
      throw error;
    s.lastIssued = null;
    const [row] = await s.rpc.model<{ accounting_date: unknown; invoice_date: unknown }[]>(
      'account.invoice',
      'read',
      [record.id],
      ['accounting_date', 'invoice_date'],
    );
    const own = isoDateOf(row?.accounting_date) ?? isoDateOf(row?.invoice_date) ?? document.date;
    await s.rpc.model('account.invoice', 'write', [record.id], {
      invoice_date: dateOf(await issueDate(s, own)),
    });
    await postRecords(s, record.model, [record.id]);
  }
}

/**
 * The day a customer invoice (or credit note) is issued in Tryton. Tryton numbers them in issue-date order
 * per sequence ("To number the invoice …, you must set an invoice date after …"), while entries reach it in
 * posting order, whose dates need not increase (a memo dated yesterday booked today, a payment recorded for
 * an earlier day, a service clock ahead of this machine's). So a document is issued on the latest of: its
 * own date, today, and the last issue date Tryton holds (read once, then followed); its accounting date stays
 * the entry's, so the books are as booksync dates them.
 */
export async function issueDate(s: TrytonSession, date: string): Promise<string> {
  if (s.lastIssued === null) {
    const [row] = await s.rpc.model<{ invoice_date: unknown }[]>(
      'account.invoice',
      'search_read',
      [
        ['type', '=', 'out'],
        ['number', '!=', null],
      ],
      0,
      1,
      [['invoice_date', 'DESC']],
      ['invoice_date'],
    );
    s.lastIssued = isoDateOf(row?.invoice_date) ?? '';
  }
  const issued = [issuedToday(), date, s.lastIssued].reduce((a, b) => (a > b ? a : b));
  s.lastIssued = issued;
  return issued;
}
