import type { AccountingTarget, TargetDocument } from '../src/targets/target-port.js';

// What the push stages of the accounting targets (quickbooks, xero) share: the backlog a business has to
// push (12 customers, per link an invoice, its payment and the card fee, and a payout every ten payments),
// the two ways to push it (batched in the push workflow's slices, and one by one, the baseline), and one
// timed run of a connected target against its double. Each stage gives its own: the double and its limits,
// the target and its limiter, what it counts and reports.

/** The minute is compressed tenfold on both sides (the limiter's window and the double's): the same rate. */
export const compression = 10;

/** The backlog of one run: its keys are the run's own, so runs against one double do not meet. */
export function backlog(run: string, links: number): TargetDocument[] {
  const date = new Date().toISOString().slice(0, 10);
  const docs: TargetDocument[] = [];
  const hash = (c: string) => c.repeat(64);
  for (let i = 0; i < links; i++) {
    const customer = {
      serviceId: `cus_${run}_${i % 12}`,
      name: `Bench Customer ${run} ${i % 12}`,
      email: null,
    };
    const invoice = { paymentLinkId: `pl_${run}_${i}`, number: `B${run}-${i}` };
    docs.push({
      key: `invoice:pl_${run}_${i}`,
      kind: 'invoice',
      date,
      description: 'Bench invoice',
      amountCents: 100_00,
      lines: [
        { role: 'AccountsReceivable', amountCents: 100_00 },
        { role: 'Revenue', amountCents: -100_00 },
      ],
      contentHash: hash('a'),
      invoice,
      customer,
    });
    docs.push({
      key: `payment:pay_${run}_${i}`,
      kind: 'payment',
      date,
      description: 'Bench payment',
      amountCents: 100_00,
      lines: [
        { role: 'ProcessorClearing', amountCents: 100_00 },
        { role: 'AccountsReceivable', amountCents: -100_00 },
      ],
      contentHash: hash('b'),
      invoice,
      customer,
    });
    docs.push({
      key: `payment-fee:pay_${run}_${i}`,
      kind: 'payment-fee',
      date,
      description: 'Bench card fee',
      amountCents: 3_20,
      lines: [
        { role: 'ProcessingFees', amountCents: 3_20 },
        { role: 'ProcessorClearing', amountCents: -3_20 },
      ],
      contentHash: hash('c'),
    });
    if (i % 10 === 9) {
      docs.push({
        key: `disbursement-paid:po_${run}_${i}`,
        kind: 'disbursement-paid',
        date,
        description: 'Bench payout',
        amountCents: 968_00,
        lines: [
          { role: 'OperatingBank', amountCents: 968_00 },
          { role: 'ProcessorClearing', amountCents: -968_00 },
        ],
        contentHash: hash('d'),
      });
    }
  }
  return docs;
}

/** A target that also pushes many documents in one call (QuickBooks' batch endpoint, Xero's collections). */
export type BatchingTarget = AccountingTarget & Required<Pick<AccountingTarget, 'pushMany'>>;

export type PushWay = (target: BatchingTarget, docs: TargetDocument[]) => Promise<void>;

/** The push workflow's slices: a hundred entries at a time. */
export const batched: PushWay = async (target, docs) => {
  for (let i = 0; i < docs.length; i += 100) {
    for (const outcome of await target.pushMany(docs.slice(i, i + 100), {
      mayExist: () => false,
      refusals: () => 0,
      pushed: () => null,
    }))
      if (outcome instanceof Error) throw outcome;
  }
};

/** The baseline: one push a document. */
export const oneByOne: PushWay = async (target, docs) => {
  for (const doc of docs)
    await target.push(doc, { mayExist: () => false, refusals: () => 0, pushed: () => null });
};

/** What one timed run tells. */
export interface PushRun {
  entries: number;
  /** Real minutes the push took. */
  minutes: number;
  /** Requests the double answered during the push. */
  requests: number;
}

/**
 * One run: the connected target verified, a backlog of `links` payments pushed the given way and timed;
 * `requests` reads the double's count of requests, `violations` the contract violations it recorded (any
 * is an error, named by `contract`).
 */
export async function timedPush(
  target: BatchingTarget,
  run: string,
  links: number,
  way: PushWay,
  double: { requests(): number; violations: string[]; contract: string },
): Promise<PushRun> {
  await target.verify();
  const docs = backlog(`${run}${Date.now().toString(36)}`, links);
  const requestsBefore = double.requests();
  const started = performance.now();
  await way(target, docs);
  const minutes = (performance.now() - started) / 60_000;
  const requests = double.requests() - requestsBefore;
  if (double.violations.length > 0)
    throw new Error(`${double.contract} violations: ${double.violations.join('; ')}`);
  return { entries: docs.length, minutes, requests };
}
