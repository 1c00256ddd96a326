import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DirectHttpDispatcher } from '../../emulator/webhooks/direct-http-dispatcher.js';
import { startEmbeddedEmulator } from '../../runtime/embedded-emulator.js';
import type { Command } from '../command.js';
import { untilSignal } from '../shutdown.js';

export const emulatorCommand: Command = {
  summary: "run booksync's emulator of the payment service alone",
  usage: `booksync emulator

Serves the whole service interface plus sandbox controls on EMULATOR_HOST:EMULATOR_PORT, with its
data in BOOKSYNC_DATA_DIR/emulator.db. Seeds a demo organization on first start.`,
  async run({ settings, logger, out }) {
    const dataDir = path.resolve(settings.BOOKSYNC_DATA_DIR);
    mkdirSync(dataDir, { recursive: true });
    const adminToken = settings.EMULATOR_ADMIN_TOKEN ?? randomBytes(24).toString('base64url');
    const running = await startEmbeddedEmulator({
      dataDir,
      host: settings.EMULATOR_HOST,
      port: settings.EMULATOR_PORT,
      adminToken,
      logger,
      dispatcher: (store) => new DirectHttpDispatcher({ store }),
    });
    out(`emulator listening on ${running.baseUrl} (data ${dataDir})`);
    out(
      `demo organization ${running.credentials.organizationId} (keys kept in ${path.join(dataDir, 'embedded-credentials.json')})`,
    );
    out(`demo API key (sandbox, every permission): ${running.credentials.apiKey}`);
    if (!settings.EMULATOR_ADMIN_TOKEN)
      out('admin token (POST /sandbox/organizations): set EMULATOR_ADMIN_TOKEN to choose one');
    await untilSignal();
    await running.close();
    return 0;
  },
};
