import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { DirectHttpDispatcher } from '@booksync/emulator/webhooks/direct-http-dispatcher';
import { ensurePrivateDir } from '@booksync/private-files';
import { embeddedCredentialsPath } from '../../runtime/embedded-credentials.js';
import { startEmbeddedEmulator } from '../../runtime/embedded-emulator.js';
import type { Command } from '../command.js';
import { requireSetting } from '../require-setting.js';
import { untilSignal } from '../shutdown.js';

export const emulatorCommand: Command = {
  summary: "run booksync's emulator of the payment service alone",
  usage: `booksync emulator [--show-key] [--require-admin-token]

Serves the whole service interface plus sandbox controls on EMULATOR_HOST:EMULATOR_PORT, with its
data in BOOKSYNC_DATA_DIR/emulator.db. Seeds a demo organization on first start; its API keys are kept in
BOOKSYNC_DATA_DIR/embedded-credentials.json (mode 0600).

  --show-key              also print the demo API key (every permission) on the terminal
  --require-admin-token   refuse to start without EMULATOR_ADMIN_TOKEN instead of generating one that
                          nobody knows (docker compose's sandbox profile runs it so)`,
  async run({ args, settings, logger, out }) {
    if (args.includes('--require-admin-token')) {
      requireSetting(settings, 'EMULATOR_ADMIN_TOKEN', 'emulator --require-admin-token');
    }
    const dataDir = path.resolve(settings.BOOKSYNC_DATA_DIR);
    ensurePrivateDir(dataDir);
    const adminToken = settings.EMULATOR_ADMIN_TOKEN ?? randomBytes(24).toString('base64url');
    const running = await startEmbeddedEmulator({
      dataDir,
      host: settings.EMULATOR_HOST,
      port: settings.EMULATOR_PORT,
      adminToken,
      logger,
      dispatcher: (store) => new DirectHttpDispatcher({ store }),
    });
    const credentials = embeddedCredentialsPath(dataDir);
    out(`emulator listening on ${running.baseUrl} (data ${dataDir})`);
    out(`demo organization ${running.credentials.organizationId}`);
    // A key on the terminal ends up in scrollback and CI logs: printed only on request (decision “Owner-only data folder”).
    if (args.includes('--show-key'))
      out(`demo API key (sandbox, every permission): ${running.credentials.apiKey}`);
    else out(`demo API keys: in ${credentials} ("apiKey"; --show-key prints it)`);
    if (!settings.EMULATOR_ADMIN_TOKEN)
      out('admin token (organizations, clock moves): set EMULATOR_ADMIN_TOKEN to choose one');
    await untilSignal();
    await running.close();
    return 0;
  },
};
