import { type Command, CommandError } from '../command.js';
import {
  argument,
  callCommandApi,
  cents,
  commandApiTarget,
  objectId,
  parseCommandArgs,
} from '../command-api-client.js';

const usage = `booksync deposit <subcommand>

  apply <checkDepositId> <paymentLinkId> [--amount CENTS]   apply a check deposit to a payment link (4.1);
                                                            without --amount, the service's default amount
  void <checkDepositId> <externalPaymentId>                 undo one application (D12), reversed in the books
  refresh <checkDepositId>                                  look at the deposit now (cleared? returned?)
  show <checkDepositId>                                     the check-deposit workflow's view (JSON)

Options: --idempotency-key KEY (a retried command with the same key is done once; default: a fresh uuid).
Talks to the command API at OPS_HOST:OPS_PORT when OPS_PORT is set, else INGRESS_PUBLIC_URL (or
INGRESS_HOST:INGRESS_PORT), with COMMAND_API_KEY, or the key 'booksync start' stored in
BOOKSYNC_DATA_DIR/embedded-credentials.json.`;

export const depositCommand: Command = {
  summary: 'apply a check deposit to payment links, void an application, show its progress',
  usage,
  async run({ args, settings, out }) {
    const { positionals, values } = parseCommandArgs(args, { amount: { type: 'string' } }, usage);
    const [subcommand, ...rest] = positionals;
    const key = values['idempotency-key'] as string | undefined;
    const target = () => commandApiTarget(settings);
    const print = (value: unknown) => out(JSON.stringify(value, null, 2));
    switch (subcommand) {
      case 'apply': {
        const checkDepositId = argument(objectId, rest[0], 'checkDepositId');
        const paymentLinkId = argument(objectId, rest[1], 'paymentLinkId');
        const amountCents =
          values.amount === undefined ? undefined : argument(cents, values.amount, '--amount');
        print(
          await callCommandApi(
            target(),
            'POST',
            `/commands/checkDeposits/${encodeURIComponent(checkDepositId)}/apply`,
            { paymentLinkId, ...(amountCents === undefined ? {} : { amountCents }) },
            key,
          ),
        );
        return 0;
      }
      case 'void': {
        const checkDepositId = argument(objectId, rest[0], 'checkDepositId');
        const externalPaymentId = argument(objectId, rest[1], 'externalPaymentId');
        print(
          await callCommandApi(
            target(),
            'POST',
            `/commands/checkDeposits/${encodeURIComponent(checkDepositId)}/applications/${encodeURIComponent(externalPaymentId)}/void`,
            undefined,
            key,
          ),
        );
        return 0;
      }
      case 'refresh': {
        const checkDepositId = argument(objectId, rest[0], 'checkDepositId');
        print(
          await callCommandApi(
            target(),
            'POST',
            `/commands/checkDeposits/${encodeURIComponent(checkDepositId)}/refresh`,
            undefined,
            key,
          ),
        );
        return 0;
      }
      case 'show': {
        const checkDepositId = argument(objectId, rest[0], 'checkDepositId');
        print(
          await callCommandApi(
            target(),
            'GET',
            `/commands/checkDeposits/${encodeURIComponent(checkDepositId)}`,
          ),
        );
        return 0;
      }
      default:
        throw new CommandError(`unknown subcommand '${subcommand ?? ''}'\n\n${usage}`);
    }
  },
};
