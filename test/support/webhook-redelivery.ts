import { setTimeout as sleep } from 'node:timers/promises';
import type { SandboxClient } from '@booksync/emulator/sandbox-client';
import { attemptDelivery, buildSignedDelivery } from '@booksync/emulator/webhooks/delivery-attempt';
import { defaultBackoffMs } from '@booksync/emulator/webhooks/direct-http-dispatcher';
import type { EventEnvelope } from '@booksync/service-contract/schemas/index';
import { shuffled } from '../e2e/expected-books.js';

/**
 * Every event the service sent so far delivered again to the ingress, `times` times each, in a shuffled
 * order (reproducible from `seed`), as the service sends them: each attempt signed afresh, and an answer other
 * than a 2xx (the ingress's 503 while Temporal is too busy to take a signal in time) tried again on the
 * service's schedule, 5 attempts at most. Answers how many events there were. Nothing new may come of them:
 * that is what the tests that call this check.
 */
export async function redeliverEverything(options: {
  sandbox: SandboxClient;
  /** The ingress's base URL (http://127.0.0.1:port). */
  ingressUrl: string;
  secret: string;
  times: number;
  seed: number;
  /** Waits between attempts (the service's 3, 6, 12 and 24 s unless given); its length + 1 attempts. */
  backoffMs?: readonly number[];
}): Promise<number> {
  const backoffMs = options.backoffMs ?? defaultBackoffMs;
  const events: EventEnvelope[] = [];
  for await (const item of options.sandbox.allEvents()) events.push(item.event);
  const copies = Array.from({ length: options.times }, () => events).flat();
  const target = {
    subscriptionId: 'redelivery',
    url: `${options.ingressUrl}/webhooks/service`,
    secret: options.secret,
  };
  for (const event of shuffled(copies, options.seed)) {
    const answers: (number | null)[] = [];
    for (let attempt = 0; ; attempt++) {
      const result = await attemptDelivery(buildSignedDelivery(event, target, Date.now()), 10_000);
      answers.push(result.statusCode);
      if (result.ok) break;
      const wait = backoffMs[attempt];
      if (wait === undefined)
        throw new Error(`redelivery of ${event.id} answered ${answers.join(', ')} (${result.error ?? ''})`);
      await sleep(wait);
    }
    if (answers.at(-1) !== 200) throw new Error(`redelivery of ${event.id} answered ${answers.join(', ')}`);
  }
  return events.length;
}
