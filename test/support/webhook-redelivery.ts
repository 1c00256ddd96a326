import type { SandboxClient } from '@booksync/emulator/sandbox-client';
import { sign } from '@booksync/service-contract/webhook-signature';
import { shuffled } from '../e2e/expected-books.js';

/**
 * Every event the service sent so far delivered again to the ingress, `times` times each, in a shuffled
 * order (reproducible from `seed`), signed as the service signs them; answers how many events there were.
 * Nothing new may come of them: that is what the tests that call this check.
 */
export async function redeliverEverything(options: {
  sandbox: SandboxClient;
  /** The ingress's base URL (http://127.0.0.1:port). */
  ingressUrl: string;
  secret: string;
  times: number;
  seed: number;
}): Promise<number> {
  const events: string[] = [];
  for await (const item of options.sandbox.allEvents()) events.push(JSON.stringify(item.event));
  const copies = Array.from({ length: options.times }, () => events).flat();
  for (const body of shuffled(copies, options.seed)) {
    const response = await fetch(`${options.ingressUrl}/webhooks/service`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'service-signature': sign(options.secret, body, Math.floor(Date.now() / 1000)),
      },
      body,
    });
    if (response.status !== 200)
      throw new Error(`redelivery answered ${response.status}: ${await response.text()}`);
  }
  return events.length;
}
