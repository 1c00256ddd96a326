import { z } from 'zod';
import { type Command, CommandError } from '../command.js';
import {
  argument,
  callCommandApi,
  cents,
  commandApiTarget,
  isoDate,
  objectId,
  parseCommandArgs,
} from '../command-api-client.js';

const usage = `booksync link <subcommand>

  record-payment <linkId> --amount CENTS --paid-at YYYY-MM-DD [--reference REF]
                                      money received outside the service (4.2), booked to Checks To Deposit
  debit-memo <linkId> --amount CENTS --description TEXT [--reference REF]
                                      an amount added to the link (D15), booked AR / Fee Income
  void-payment <linkId> <externalPaymentId>   void an external payment (D12); reversed in the books
  void-memo <linkId> <debitMemoId>            void a debit memo (D15); reversed in the books
  sync <linkId>                               fetch the link and book what changed at the service
  show <linkId>                               the payment-link workflow's view (JSON)

Options: --idempotency-key KEY (a retried command with the same key is done once; default: a fresh uuid).
Talks to the command API at OPS_HOST:OPS_PORT when OPS_PORT is set, else INGRESS_PUBLIC_URL (or
INGRESS_HOST:INGRESS_PORT), with COMMAND_API_KEY, or the key 'booksync start' stored in
BOOKSYNC_DATA_DIR/embedded-credentials.json.`;

const reference = z.string().min(1).max(255, 'at most 255 characters');
const description = z.string().trim().min(1, 'required').max(500, 'at most 500 characters');

export const linkCommand: Command = {
  summary: 'record or void external payments and debit memos on a payment link, sync it, show it',
  usage,
  async run({ args, settings, out }) {
    const { positionals, values } = parseCommandArgs(
      args,
      {
        amount: { type: 'string' },
        'paid-at': { type: 'string' },
        reference: { type: 'string' },
        description: { type: 'string' },
      },
      usage,
    );
    const [subcommand, linkArg, idArg] = positionals;
    const key = values['idempotency-key'] as string | undefined;
    const print = (value: unknown) => out(JSON.stringify(value, null, 2));
    if (
      !subcommand ||
      !['record-payment', 'debit-memo', 'void-payment', 'void-memo', 'sync', 'show'].includes(subcommand)
    ) {
      throw new CommandError(`unknown subcommand '${subcommand ?? ''}'\n\n${usage}`);
    }
    const linkId = argument(objectId, linkArg, 'linkId');
    const base = `/commands/paymentLinks/${encodeURIComponent(linkId)}`;
    const ref =
      values.reference === undefined
        ? {}
        : { externalReferenceId: argument(reference, values.reference, '--reference') };
    let request: { method: 'GET' | 'POST'; route: string; body?: unknown };
    switch (subcommand) {
      case 'record-payment':
        request = {
          method: 'POST',
          route: `${base}/externalPayments`,
          body: {
            amountCents: argument(cents, values.amount, '--amount'),
            paidAt: argument(isoDate, values['paid-at'], '--paid-at'),
            ...ref,
          },
        };
        break;
      case 'debit-memo':
        request = {
          method: 'POST',
          route: `${base}/debitMemos`,
          body: {
            amountCents: argument(cents, values.amount, '--amount'),
            description: argument(description, values.description, '--description'),
            ...ref,
          },
        };
        break;
      case 'void-payment':
        request = {
          method: 'POST',
          route: `${base}/externalPayments/${encodeURIComponent(argument(objectId, idArg, 'externalPaymentId'))}/void`,
        };
        break;
      case 'void-memo':
        request = {
          method: 'POST',
          route: `${base}/debitMemos/${encodeURIComponent(argument(objectId, idArg, 'debitMemoId'))}/void`,
        };
        break;
      case 'sync':
        request = { method: 'POST', route: `${base}/sync`, body: { reason: 'booksync link sync' } };
        break;
      default:
        request = { method: 'GET', route: base };
    }
    print(await callCommandApi(commandApiTarget(settings), request.method, request.route, request.body, key));
    return 0;
  },
};
