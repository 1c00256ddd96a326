import { existsSync } from 'node:fs';
import { writeEnvFile } from '../../config/env-file.js';
import { startBooksync } from '../../runtime/booksync-stack.js';
import { activeTracing } from '../../telemetry/tracing.js';
import type { Command } from '../command.js';
import { untilSignal } from '../shutdown.js';
import { runDemoAgainst } from './demo.js';

export function temporalUiQueryUrl(uiUrl: string, namespace: string, query: string): string {
  return `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows?query=${encodeURIComponent(query)}`;
}

export const startCommand: Command = {
  summary: 'run everything: Temporal dev server, emulator, ingress and worker (embedded defaults)',
  usesTemporal: true,
  runsWorker: true,
  logsToFileAtTerminal: true,
  usage: `booksync start [--demo | --no-demo] [--verbose]

Starts booksync with every piece embedded unless its setting points at a real one:
  TEMPORAL_ADDRESS unset  -> a Temporal dev server (SQLite under BOOKSYNC_DATA_DIR, Web UI)
  SERVICE_BASE_URL unset  -> booksync's emulator of the payment service, with a demo organization
Then the webhook ingress and the worker. Ctrl-C stops everything; a restart resumes from the data folder.
On a fresh data folder with the embedded emulator, it then runs 'booksync demo' once (--no-demo skips it,
--demo runs it again): a business day, then its month closed (the emulator's clock moved to the next month,
the certificate, the books closed through the month's last day).
At a terminal the log goes to BOOKSYNC_DATA_DIR/logs/booksync.log (rotated at 10 MiB) and only warnings
and errors to the screen; --verbose, LOG_LEVEL or LOG_FORMAT put the whole log on the screen again.`,
  async run({ args, settings, logger, out }) {
    // A fresh start: no SQLite ledger file yet, or (PostgreSQL) nothing booked yet.
    const freshFile = settings.LEDGER_URL ? null : !existsSync(settings.ledgerDb);
    const stack = await startBooksync(settings, logger);
    const fresh = freshFile ?? (await stack.ledger.trialBalance()).totalDebitCents === 0;
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
      `  Webhook ingress       ${stack.ingressUrl}/webhooks/service  (metrics ${stack.operationsUrl}/metrics)`,
    );
    out(
      `  Worker health         ${stack.workerHealthUrl}/readyz  (metrics ${stack.workerHealthUrl}/metrics)`,
    );
    out(
      `  Console               ${stack.consoleUrl}  (account bookkeeper, ${
        settings.CONSOLE_PASSWORD || !stack.emulator
          ? 'password CONSOLE_PASSWORD'
          : 'its password consolePassword in embedded-credentials.json'
      })`,
    );
    out(`  Ledger                ${stack.ledgerLocation}`);
    if (activeTracing()) {
      out(
        `  Tracing               OTLP to ${process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_ENDPOINT} (OTEL_*)`,
      );
    }
    const closedThrough = await stack.ledger.booksClosedThrough();
    out(
      `  Books                 dated in ${settings.BOOKS_TIME_ZONE} (BOOKS_TIME_ZONE); ${closedThrough ? `closed through ${closedThrough}` : 'no period closed'}`,
    );
    // The same settings for commands in another terminal (npx booksync targets status just works).
    out(
      `  Settings              ${writeEnvFile(settings.BOOKSYNC_DATA_DIR)} (read by booksync's other commands)`,
    );
    const demo = args.includes('--demo') || (fresh && stack.emulator !== null && !args.includes('--no-demo'));
    if (demo) {
      try {
        await runDemoAgainst(
          settings,
          stack.ledger,
          out,
          settings.DEMO_CLOSES_MONTH
            ? {
                client: stack.client,
                targetIndex: stack.targetIndex,
                reports: stack.reports,
                // The embedded emulator's own token (EMULATOR_ADMIN_TOKEN, or the one made for this start).
                adminToken: stack.emulator?.adminToken ?? settings.EMULATOR_ADMIN_TOKEN,
              }
            : undefined,
        );
      } catch (error) {
        // booksync keeps running: the demo is a tour, not part of the service.
        out(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    out('');
    out(`The books in a browser: ${stack.consoleUrl}`);
    out('Try next (another terminal): npx booksync ledger trial-balance, npx booksync demo');
    out('Ctrl-C stops everything.');
    const signal = await untilSignal((s) => logger.info({ signal: s }, 'stopping'));
    await stack.stop();
    logger.info({ signal }, 'stopped');
    return 0;
  },
};
