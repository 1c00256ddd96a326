import path from 'node:path';
import type { LedgerPort } from '../../accounting/ledger-port.js';
import type { Settings } from '../../config/settings.js';
import { runDemo } from '../../demo/run-demo.js';
import { readEmbeddedCredentials } from '../../runtime/embedded-credentials.js';
import { openLedgerStore } from '../../runtime/ledger-store.js';
import { type Command, CommandError } from '../command.js';
import { commandApiTarget } from '../command-api-client.js';

export const demoCommand: Command = {
  summary: "drive a small business's day through the emulator and watch it reach the books",
  usage: `booksync demo

Needs a running 'booksync start' with the embedded emulator (or SERVICE_BASE_URL pointing at an emulator).
Card and ACH payments, a partial external payment, a debit memo, a check deposit that clears and one that
is returned, a refund, an ACH return, a payout and a bill paid by check; then the trial balance and where
to see each flow in the Temporal UI. 'booksync start' runs it by itself on a fresh data folder.`,
  async run({ settings, out }) {
    const store = await openLedgerStore(settings);
    try {
      await runDemoAgainst(settings, store.ledger, out);
    } finally {
      await store.close();
    }
    return 0;
  },
};

/** The demo against the booksync that the settings describe (the embedded one: keys from the data folder). */
export async function runDemoAgainst(settings: Settings, ledger: LedgerPort, out: (line: string) => void) {
  const serviceApiKey =
    settings.SERVICE_API_KEY ?? readEmbeddedCredentials(path.resolve(settings.BOOKSYNC_DATA_DIR))?.apiKey;
  if (!serviceApiKey) {
    throw new CommandError(
      "SERVICE_API_KEY: not set, and no embedded emulator key (start booksync first: 'npm start')",
    );
  }
  await runDemo({
    serviceBaseUrl: settings.SERVICE_BASE_URL ?? `http://${settings.EMULATOR_HOST}:${settings.EMULATOR_PORT}`,
    serviceApiKey,
    commands: commandApiTarget(settings),
    ledger,
    temporalUiUrl: settings.TEMPORAL_ADDRESS ? null : `http://127.0.0.1:${settings.TEMPORAL_UI_PORT}`,
    namespace: settings.TEMPORAL_NAMESPACE,
    out,
  });
}
