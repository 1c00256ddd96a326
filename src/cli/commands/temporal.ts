import { connectClient, temporalTarget } from '../../runtime/temporal-connection.js';
import { registerSearchAttributes } from '../../temporal/register-search-attributes.js';
import { booksyncSearchAttributes } from '../../workflow-safe/search-attributes.js';
import { type Command, CommandError } from '../command.js';
import { requireSetting } from '../require-setting.js';

/** One line of a gRPC error: "3 INVALID_ARGUMENT: Namespace x is not found." without its metadata. */
function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]!.trim();
}

export const temporalCommand: Command = {
  summary: "prepare a Temporal namespace for booksync (registers booksync's search attributes)",
  usesTemporal: true,
  usage: `booksync temporal setup

Registers booksync's search attributes (${booksyncSearchAttributes.map((k) => k.name).join(', ')})
in TEMPORAL_NAMESPACE on the Temporal at TEMPORAL_ADDRESS, adding only those missing: safe to run again, and
run by docker compose's one-shot 'setup' service before the workers. Prints what it added, or that all were
there; exit 1 with one line when Temporal cannot be reached or refuses (for example a namespace that does not
exist, or an identity without the right to change the namespace). 'booksync worker' does the same at start.`,
  async run({ args, settings, out }) {
    const [what, ...rest] = args;
    if (what !== 'setup' || rest.length > 0) {
      throw new CommandError(
        `${what ? `unknown temporal command '${[what, ...rest].join(' ')}'` : 'name a temporal command'}: see 'booksync temporal --help'`,
      );
    }
    const address = requireSetting(settings, 'TEMPORAL_ADDRESS', 'temporal setup');
    const namespace = settings.TEMPORAL_NAMESPACE;
    const { connection } = await connectClient(temporalTarget(settings, address));
    try {
      let added: string[];
      try {
        added = await registerSearchAttributes(connection, namespace);
      } catch (error) {
        throw new CommandError(
          `cannot register booksync's search attributes in namespace '${namespace}' at ${address}: ${oneLine(error)}`,
        );
      }
      const all = booksyncSearchAttributes.length;
      if (added.length === 0) {
        out(
          `all ${all} search attributes of booksync already registered in namespace '${namespace}': nothing to add`,
        );
      } else {
        const types = new Map(booksyncSearchAttributes.map((k) => [k.name, k.type]));
        out(
          `registered ${added.length} of ${all} search attributes in namespace '${namespace}': ${added
            .map((name) => `${name} (${types.get(name)})`)
            .join(', ')}`,
        );
      }
      return 0;
    } finally {
      await connection.close();
    }
  },
};
