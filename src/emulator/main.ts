import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { createLogger } from '../logging/logger.js';
import { ensurePrivateDir } from '../storage/private-files.js';
import { seedDemo } from './seed.js';
import { createEmulator } from './server.js';
import { Store } from './store/store.js';
import { DirectHttpDispatcher } from './webhooks/direct-http-dispatcher.js';

// Standalone emulator: EMULATOR_PORT (default 4010), EMULATOR_DB (default ./data/emulator.sqlite),
// EMULATOR_ADMIN_TOKEN (default: a random one, printed). Seeds the demo organization on first start.
const port = Number(process.env.EMULATOR_PORT ?? 4010);
const dbPath = resolve(process.env.EMULATOR_DB ?? 'data/emulator.sqlite');
const adminToken = process.env.EMULATOR_ADMIN_TOKEN ?? randomBytes(18).toString('base64url');

ensurePrivateDir(dirname(dbPath));
const logger = createLogger({ name: 'emulator' });
const store = new Store({ dbPath });
const firstStart =
  (store.db.prepare('SELECT COUNT(*) AS n FROM organizations').get() as { n: number }).n === 0;
const demo = firstStart ? seedDemo(store) : undefined;
const { app } = createEmulator({
  store,
  adminToken,
  logger,
  dispatcher: (s) => new DirectHttpDispatcher({ store: s }),
});

await app.listen({ host: '127.0.0.1', port });
const baseUrl = `http://127.0.0.1:${port}`;
console.log(`emulator listening on ${baseUrl} (data ${dbPath})`);
if (!process.env.EMULATOR_ADMIN_TOKEN)
  console.log(`admin token (POST /sandbox/organizations): ${adminToken}`);
if (demo) {
  console.log(`demo organization ${demo.created.organization.id}`);
  console.log(`demo API key (all permissions, shown once): ${demo.apiKey}`);
  console.log(`demo API key (no permissions): ${demo.limitedApiKey}`);
} else {
  console.log('existing data file: the demo keys were printed on its first start');
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void app.close().then(() => {
      store.close();
      process.exit(0);
    });
  });
}
