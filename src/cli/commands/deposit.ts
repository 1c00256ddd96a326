import { formatUsd } from '../../ledger/money.js';
import { type Command, CommandError } from '../command.js';
import { argument, cents, objectId, parseCommandArgs, sendCommand } from '../command-api-client.js';
import { applyLine, voidLine } from '../command-outcome-lines.js';

const usage = `booksync deposit <subcommand> [--json]

  apply <checkDepositId> <paymentLinkId> [--amount CENTS]   apply a check deposit to a payment link (4.1);
                                                            without --amount, the service's default amount
  void <checkDepositId> <externalPaymentId>                 undo one application, reversed in the books
  refresh <checkDepositId>                                  look at the deposit now (cleared? returned?)
  show <checkDepositId>                                     the check-deposit workflow's view

Prints the outcome in one line (exit 0), or the service's refusal (exit 1); --json prints the whole answer.
Options: --idempotency-key KEY (a retried command with the same key is done once; default: a fresh key,
printed when a failure may have gone through). Talks to the command API at OPS_HOST:OPS_PORT when OPS_PORT is
set, else INGRESS_PUBLIC_URL (or INGRESS_HOST:INGRESS_PORT), with COMMAND_API_KEY, or the key 'booksync
start' stored in BOOKSYNC_DATA_DIR/embedded-credentials.json.`;

export const depositCommand: Command = {
  summary: 'apply a check deposit to payment links, void an application, show its progress',
  usage,
  async run({ args, settings, out }) {
    const { positionals, values } = parseCommandArgs(
      args,
      { amount: { type: 'string' }, json: { type: 'boolean' } },
      usage,
    );
    const [subcommand, ...rest] = positionals;
    const key = values['idempotency-key'] as string | undefined;
    const json = values.json === true;
    const print = (body: unknown, line: string) => out(json ? JSON.stringify(body, null, 2) : line);
    switch (subcommand) {
      case 'apply': {
        const checkDepositId = argument(objectId, rest[0], 'checkDepositId');
        const paymentLinkId = argument(objectId, rest[1], 'paymentLinkId');
        const amountCents =
          values.amount === undefined ? undefined : argument(cents, values.amount, '--amount');
        const { body } = await sendCommand(
          (client) =>
            client.call(
              'applyDeposit',
              { checkDepositId },
              { paymentLinkId, ...(amountCents === undefined ? {} : { amountCents }) },
              key,
            ),
          settings,
        );
        print(body, applyLine(body));
        return 0;
      }
      case 'void': {
        const checkDepositId = argument(objectId, rest[0], 'checkDepositId');
        const externalPaymentId = argument(objectId, rest[1], 'externalPaymentId');
        const { body } = await sendCommand(
          (client) => client.call('voidApplication', { checkDepositId, externalPaymentId }, undefined, key),
          settings,
        );
        print(body, voidLine(body));
        return 0;
      }
      case 'refresh': {
        const checkDepositId = argument(objectId, rest[0], 'checkDepositId');
        const { body } = await sendCommand(
          (client) => client.call('refreshDeposit', { checkDepositId }, undefined, key),
          settings,
        );
        print(body, `${body.workflowId} looks at the deposit now`);
        return 0;
      }
      case 'show': {
        const checkDepositId = argument(objectId, rest[0], 'checkDepositId');
        const { body } = await sendCommand(
          (client) => client.call('depositView', { checkDepositId }),
          settings,
        );
        const view = body as {
          state?: string;
          amountCents?: number | null;
          unappliedAmountCents?: number | null;
          applications?: { paymentLinkId: string; status: string; amountCents: number | null }[];
          lastError?: string | null;
        };
        const money = (c: number | null | undefined) => (c === null || c === undefined ? '?' : formatUsd(c));
        const applications = (view.applications ?? [])
          .map((a) => `${a.paymentLinkId} ${money(a.amountCents)} ${a.status}`)
          .join(', ');
        print(
          body,
          `${checkDepositId}: ${view.state ?? '?'}, ${money(view.amountCents)}, ${money(view.unappliedAmountCents)} unapplied; applications: ${applications || 'none'}${view.lastError ? `; last error: ${view.lastError}` : ''}`,
        );
        return 0;
      }
      default:
        throw new CommandError(`unknown subcommand '${subcommand ?? ''}'\n\n${usage}`);
    }
  },
};
