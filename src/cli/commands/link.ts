import { z } from 'zod';
import type { CommandApiClient } from '../../command-api/client.js';
import {
  type DepositSlipAnswerBody,
  DepositSlipBody,
  type DepositSlipPendingBody,
  type LinkAnswer,
  type PendingAnswer,
  type WriteOffAnswerBody,
  type WriteOffWithdrawnBody,
} from '../../command-api/contract.js';
import { formatUsd } from '../../ledger/money.js';
import { type Command, CommandError } from '../command.js';
import { argument, cents, isoDate, objectId, parseCommandArgs, sendCommand } from '../command-api-client.js';
import { linkLine } from '../command-outcome-lines.js';

const usage = `booksync link <subcommand>

  record-payment <linkId> --amount CENTS --paid-at YYYY-MM-DD [--reference REF]
                                      money received outside the service (4.2), booked to Checks To Deposit
  debit-memo <linkId> --amount CENTS --description TEXT [--reference REF]
                                      an amount added to the link, booked AR / Fee Income
  deposit --date YYYY-MM-DD --reference REF <linkId>:<externalPaymentId> [...]
                                      a deposit slip: these external payments were taken to the bank on
                                      that date under slip number REF; booked Dr Operating Bank / Cr Checks
                                      To Deposit (the same slip again changes nothing)
  write-off <linkId> [--reason TEXT]  what the link still owes is uncollectible: recorded in the books, then
                                      the link's own amount lowered at the service by it; booked Dr Bad Debt
                                      / Cr Accounts Receivable (refused when nothing is left to pay, or what
                                      is left is in debit memos)
  withdraw-write-off <linkId> <writeOffId>    a write-off that never lowered the link (its outcome was
                                      unknown and the link changed since): it covers nothing from now on
                                      (refused once it is booked, or while the link has a lowering not booked)
  void-payment <linkId> <externalPaymentId>   void an external payment; reversed in the books
  void-memo <linkId> <debitMemoId>            void a debit memo; reversed in the books
  sync <linkId>                               fetch the link and book what changed at the service
  show <linkId>                               the payment-link workflow's view

Prints the outcome in one line (exit 0), or the service's refusal (exit 1); --json prints the whole answer.

Options: --idempotency-key KEY (a retried command with the same key is done once; default: a fresh key,
printed when a failure may have gone through).
Talks to the command API at OPS_HOST:OPS_PORT when OPS_PORT is set, else INGRESS_PUBLIC_URL (or
INGRESS_HOST:INGRESS_PORT), with COMMAND_API_KEY, or the key 'booksync start' stored in
BOOKSYNC_DATA_DIR/embedded-credentials.json.`;

const reference = z.string().min(1).max(255, 'at most 255 characters');
const description = z.string().trim().min(1, 'required').max(500, 'at most 500 characters');
const writeOffIdArg = z.string().min(1, 'required').max(200, 'at most 200 characters');
const writeOffReason = z.string().trim().min(1, 'must not be empty').max(500, 'at most 500 characters');

export const linkCommand: Command = {
  summary:
    'record or void external payments and debit memos on a payment link, write off what it owes, sync it, show it',
  usage,
  async run({ args, settings, out }) {
    const { positionals, values } = parseCommandArgs(
      args,
      {
        amount: { type: 'string' },
        'paid-at': { type: 'string' },
        reference: { type: 'string' },
        description: { type: 'string' },
        date: { type: 'string' },
        reason: { type: 'string' },
        json: { type: 'boolean' },
      },
      usage,
    );
    const [subcommand, linkArg, idArg] = positionals;
    const key = values['idempotency-key'] as string | undefined;
    if (
      !subcommand ||
      ![
        'record-payment',
        'debit-memo',
        'deposit',
        'write-off',
        'withdraw-write-off',
        'void-payment',
        'void-memo',
        'sync',
        'show',
      ].includes(subcommand)
    ) {
      throw new CommandError(`unknown subcommand '${subcommand ?? ''}'\n\n${usage}`);
    }
    if (subcommand === 'deposit') {
      const answer = await sendCommand(
        (c) => c.call('bookDepositSlip', {}, depositSlipOf(positionals.slice(1), values), key),
        settings,
      );
      const body = answer.body;
      out(values.json === true ? JSON.stringify(body, null, 2) : depositSlipLine(body));
      return 0;
    }
    const linkId = argument(objectId, linkArg, 'linkId');
    const ref =
      values.reference === undefined
        ? {}
        : { externalReferenceId: argument(reference, values.reference, '--reference') };
    const json = values.json === true;
    const print = (body: unknown, line: string) => out(json ? JSON.stringify(body, null, 2) : line);
    const params = { id: linkId };
    /** Sends a write command and prints its outcome (or where to ask for it). */
    const write = async (send: (c: CommandApiClient) => Promise<{ body: LinkAnswer | PendingAnswer }>) => {
      const answer = await sendCommand(send, settings);
      print(answer.body, linkLine(answer.body, linkId));
    };
    switch (subcommand) {
      case 'record-payment': {
        const body = {
          amountCents: argument(cents, values.amount, '--amount'),
          paidAt: argument(isoDate, values['paid-at'], '--paid-at'),
          ...ref,
        };
        await write((c) => c.call('recordExternalPayment', params, body, key));
        break;
      }
      case 'debit-memo': {
        const body = {
          amountCents: argument(cents, values.amount, '--amount'),
          description: argument(description, values.description, '--description'),
          ...ref,
        };
        await write((c) => c.call('recordDebitMemo', params, body, key));
        break;
      }
      case 'write-off':
      case 'withdraw-write-off':
        await writeOffs(subcommand, { linkId, idArg, reason: values.reason, key, settings, print });
        break;
      case 'void-payment': {
        const externalPaymentId = argument(objectId, idArg, 'externalPaymentId');
        await write((c) => c.call('voidExternalPayment', { ...params, externalPaymentId }, undefined, key));
        break;
      }
      case 'void-memo': {
        const debitMemoId = argument(objectId, idArg, 'debitMemoId');
        await write((c) => c.call('voidDebitMemo', { ...params, debitMemoId }, undefined, key));
        break;
      }
      case 'sync': {
        const answer = await sendCommand(
          (c) => c.call('syncLink', params, { reason: 'booksync link sync' }, key),
          settings,
        );
        print(answer.body, `${answer.body.workflowId} fetches the link and books what changed`);
        break;
      }
      default: {
        const { body } = await sendCommand((c) => c.call('linkView', params), settings);
        const view = body as {
          serviceStatus?: string | null;
          requestedAmountCents?: number | null;
          completedAmountCents?: number | null;
          externalPayments?: unknown[];
          debitMemos?: unknown[];
          lastError?: string | null;
        };
        const money = (c: number | null | undefined) => (c === null || c === undefined ? '?' : formatUsd(c));
        print(
          body,
          `${linkId}: ${view.serviceStatus ?? '?'}, requested ${money(view.requestedAmountCents)}, completed ${money(view.completedAmountCents)}; ${view.externalPayments?.length ?? 0} external payments, ${view.debitMemos?.length ?? 0} debit memos${view.lastError ? `; last error: ${view.lastError}` : ''}`,
        );
      }
    }
    return 0;
  },
};

/** The slip the arguments describe, checked by the command API's own schema before anything is sent. */
function depositSlipOf(
  pairs: string[],
  values: Record<string, string | boolean | undefined>,
): z.input<typeof DepositSlipBody> {
  if (pairs.length === 0) {
    throw new CommandError('give at least one <linkId>:<externalPaymentId>');
  }
  const payments = pairs.map((pair) => {
    const [paymentLinkId, externalPaymentId, ...rest] = pair.split(':');
    if (!paymentLinkId || !externalPaymentId || rest.length > 0) {
      throw new CommandError(`${pair}: give <linkId>:<externalPaymentId>`);
    }
    return {
      paymentLinkId: argument(objectId, paymentLinkId, 'linkId'),
      externalPaymentId: argument(objectId, externalPaymentId, 'externalPaymentId'),
    };
  });
  return {
    reference: argument(DepositSlipBody.shape.reference, values.reference, '--reference'),
    date: argument(DepositSlipBody.shape.date, values.date, '--date'),
    payments,
  };
}

function depositSlipLine(body: DepositSlipAnswerBody | DepositSlipPendingBody): string {
  if (body.status === 'PENDING') {
    const pending = body as DepositSlipPendingBody;
    return `${pending.workflowId}: still booking; ask ${pending.outcome}`;
  }
  const slip = body as DepositSlipAnswerBody;
  const checks = `${slip.payments.length} ${slip.payments.length === 1 ? 'check' : 'checks'}`;
  return slip.created
    ? `deposit slip ${slip.reference} booked: ${checks}, ${formatUsd(slip.totalCents)} to the operating bank on ${slip.date} (${slip.key})`
    : `deposit slip ${slip.reference} was booked already: ${checks}, ${formatUsd(slip.totalCents)} on ${slip.date} (${slip.key})`;
}

function writeOffLine(body: WriteOffAnswerBody): string {
  const written = `${formatUsd(body.amountCents)} to Bad Debt${body.reason ? ` (${body.reason})` : ''}`;
  return body.created
    ? `payment link ${body.paymentLinkId} written off: ${written}; it now asks for ${formatUsd(body.link.requestedAmountCents ?? 0)}, nothing left to pay`
    : `payment link ${body.paymentLinkId} was written off already: ${written}`;
}

/** `write-off` (what the link owes given up) and `withdraw-write-off` (one that never lowered it). */
async function writeOffs(
  subcommand: 'write-off' | 'withdraw-write-off',
  asked: {
    linkId: string;
    idArg: string | undefined;
    reason: string | boolean | undefined;
    key: string | undefined;
    settings: Parameters<typeof sendCommand>[1];
    print: (body: unknown, line: string) => void;
  },
): Promise<void> {
  const params = { id: asked.linkId };
  if (subcommand === 'write-off') {
    const body =
      asked.reason === undefined ? {} : { reason: argument(writeOffReason, asked.reason, '--reason') };
    const answer = await sendCommand((c) => c.call('writeOffLink', params, body, asked.key), asked.settings);
    asked.print(answer.body, writeOffLine(answer.body));
    return;
  }
  const writeOffId = argument(writeOffIdArg, asked.idArg, 'writeOffId');
  const answer = await sendCommand(
    (c) => c.call('withdrawWriteOff', { ...params, writeOffId }),
    asked.settings,
  );
  asked.print(answer.body, withdrawnLine(answer.body));
}

function withdrawnLine(body: WriteOffWithdrawnBody): string {
  return body.withdrawn
    ? `write-off ${body.writeOffId} of payment link ${body.paymentLinkId} withdrawn: its ${formatUsd(body.amountCents)} covers nothing from now on`
    : `write-off ${body.writeOffId} of payment link ${body.paymentLinkId} was withdrawn already (${body.withdrawnAt})`;
}
