import { type RunningIngress, startIngress } from '../../../src/ingress/main.js';
import type { IngressOptions } from '../../../src/ingress/server.js';
import { type Logger, silentLogger } from '../../../src/logging/logger.js';
import type { ServiceClient } from '../../../src/service/client.js';
import { freePort } from '../free-port.js';
import type { Closer } from './closer.js';
import type { TemporalPart } from './temporal.js';

export interface IngressChoice
  extends Partial<
    Pick<
      IngressOptions,
      'commandApiKey' | 'commandAnswerWithinMs' | 'returnedCheckFeeCents' | 'console' | 'signalTimeoutMs'
    >
  > {
  /**
   * 'subscribe': the emulator's subscription points at the ingress, which verifies its secret (the default);
   * 'unsubscribed': no subscription and no ingress until webhooksToIngress; { secrets }: no subscription, the
   * ingress verifies these.
   */
  webhooks?: 'subscribe' | 'unsubscribed' | { secrets: string[] };
}

/** booksync's ingress in the test process, on one port for its life, signalling through the stack's client. */
export interface IngressPart {
  url: string;
  /** The subscription pointing at the ingress (the last webhooksToIngress), if any. */
  readonly subscription: { id: string; secret: string } | undefined;
  /** A new subscription pointing at the ingress; the ingress restarts on its port verifying its secret. */
  webhooksToIngress(): Promise<string>;
}

export async function startIngressPart(
  choice: IngressChoice,
  context: {
    closing: Closer;
    temporal: TemporalPart;
    taskQueue: string;
    service: ServiceClient;
    logger: Logger | undefined;
  },
): Promise<IngressPart> {
  const { webhooks = 'subscribe', ...settings } = choice;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let ingress: RunningIngress | undefined;
  const startWith = async (secrets: string[]) => {
    await ingress?.close();
    ingress = undefined;
    ingress = await startIngress({
      host: '127.0.0.1',
      port,
      temporal: { client: context.temporal.client },
      taskQueue: context.taskQueue,
      webhookSecrets: secrets,
      logger: context.logger ?? silentLogger,
      ...settings,
    });
  };
  context.closing.push(() => ingress?.close());
  let subscription: { id: string; secret: string } | undefined;
  const webhooksToIngress = async () => {
    const created = await context.service.createWebhook({ url: `${url}/webhooks/service` });
    if (!created.secret) throw new Error('the emulator created an unsigned subscription');
    subscription = { id: created.id, secret: created.secret };
    await startWith([created.secret]);
    return created.secret;
  };
  if (webhooks === 'subscribe') await webhooksToIngress();
  else if (webhooks !== 'unsubscribed') await startWith(webhooks.secrets);
  return {
    url,
    get subscription() {
      return subscription;
    },
    webhooksToIngress,
  };
}
