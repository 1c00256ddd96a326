import { startBooksync } from '../../runtime/booksync-stack.js';
import type { Command } from '../command.js';
import { untilSignal } from '../shutdown.js';

export function temporalUiQueryUrl(uiUrl: string, namespace: string, query: string): string {
  return `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows?query=${encodeURIComponent(query)}`;
}

export const startCommand: Command = {
  summary: 'run everything: Temporal dev server, emulator, ingress and worker (embedded defaults)',
  usesTemporal: true,
  usage: `booksync start

Starts booksync with every piece embedded unless its setting points at a real one:
  TEMPORAL_ADDRESS unset  -> a Temporal dev server (SQLite under BOOKSYNC_DATA_DIR, Web UI)
  SERVICE_BASE_URL unset  -> booksync's emulator of the payment service, with a demo organization
Then the webhook ingress and the worker. Ctrl-C stops everything; a restart resumes from the data folder.`,
  async run({ settings, logger, out }) {
    const stack = await startBooksync(settings, logger);
    const ns = settings.TEMPORAL_NAMESPACE;
    out('');
    out('booksync is running');
    if (stack.temporalUiUrl) {
      out(`  Temporal UI           ${stack.temporalUiUrl}/namespaces/${ns}/workflows`);
      out(
        `  ACH in return window  ${temporalUiQueryUrl(stack.temporalUiUrl, ns, 'SyncState="IN_RETURN_WINDOW" AND PaymentMethodType="ACH"')}`,
      );
    }
    out(`  Temporal              ${stack.temporalAddress} (namespace ${ns})`);
    out(
      `  Service               ${stack.serviceBaseUrl}${stack.emulator ? ' (emulator; demo keys in the data folder, embedded-credentials.json)' : ''}`,
    );
    out(
      `  Webhook ingress       ${stack.ingressUrl}/webhooks/service  (metrics ${stack.ingressUrl}/metrics)`,
    );
    out(
      `  Worker health         ${stack.workerHealthUrl}/readyz  (metrics ${stack.workerHealthUrl}/metrics)`,
    );
    out(`  Ledger                ${settings.ledgerDb}`);
    out('');
    out('Try next (another terminal): npx booksync ledger trial-balance');
    out('Ctrl-C stops everything.');
    const signal = await untilSignal((s) => logger.info({ signal: s }, 'stopping'));
    await stack.stop();
    logger.info({ signal }, 'stopped');
    return 0;
  },
};
