import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { depositCheck } from '@booksync/emulator/domain/check-deposits';
import { createPaymentLink } from '@booksync/emulator/domain/payment-links';
import { seedDemo } from '@booksync/emulator/seed';
import { createEmulator } from '@booksync/emulator/server';
import { Store } from '@booksync/emulator/store/store';
import Fastify from 'fastify';
import { childInput, serveParent } from './child.js';

// Child process: the emulator on a SQLite file (WAL, as `booksync emulator` runs it) with `links` payment
// links and one deposit big enough for every application; and, on another port of the same process, a bare
// Fastify app whose routes answer the same JSON the emulator gave once, with no work behind it.

const { links: linkCount } = childInput<{ links: number }>();
const dir = mkdtempSync(path.join(tmpdir(), 'booksync-bench-emulator-'));
const store = new Store({ dbPath: path.join(dir, 'emulator.db') });
const demo = seedDemo(store);
const orgId = demo.created.organization.id;
const { links, depositId } = store.write((tx) => ({
  links: Array.from(
    { length: linkCount },
    (_, i) => createPaymentLink(tx, orgId, { name: `BENCH-${i}`, requestedAmountCents: 100_000_000 }).id,
  ),
  depositId: depositCheck(tx, orgId, { amountCents: 1_000_000_000_000 }).id,
}));
const emulator = createEmulator({ store });
const emulatorUrl = await emulator.app.listen({ host: '127.0.0.1', port: 0 });

const headers = { authorization: `Bearer ${demo.apiKey}`, 'content-type': 'application/json' };
const linkJson = (
  await emulator.app.inject({ method: 'GET', url: `/paymentLink/${links[0]}`, headers })
).json();
const applyJson = (
  await emulator.app.inject({
    method: 'POST',
    url: `/serviceBanking/checkDeposits/${depositId}/apply`,
    headers,
    payload: { paymentLinkId: links[0], amountCents: 1, externalReferenceId: 'bench-sample' },
  })
).json();

const bare = Fastify();
bare.get('/paymentLink/:id', async () => linkJson);
bare.post('/apply', async (request) => {
  if (typeof request.body !== 'object' || request.body === null) throw new Error('no body');
  return applyJson;
});
const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });

serveParent({}, async () => {
  await bare.close();
  await emulator.app.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});
process.send?.({ type: 'ready', emulatorUrl, bareUrl, apiKey: demo.apiKey, links, depositId });
