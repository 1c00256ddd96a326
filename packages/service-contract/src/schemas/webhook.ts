import { z } from 'zod';
import { id, isoDateTime } from './primitives.js';

// Spec 6.1, decision “Webhook subscription”.

/** `whsec_` followed by the key material (decision “Webhook subscription”). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

export const WebhookSubscription = z.object({
  id,
  url: z.url(),
  /** null for subscriptions made before signing existed: deliveries are unsigned (6.1 rule 3). */
  secret: z.string().startsWith(WEBHOOK_SECRET_PREFIX).nullable(),
  createdAt: isoDateTime,
});
export type WebhookSubscription = z.infer<typeof WebhookSubscription>;

export const CreateWebhookRequest = z.object({ url: z.url({ protocol: /^https?$/ }) });
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequest>;

/** GET /webhook: 0 or 1 entries (6.1 rule 1). */
export const WebhookList = z.object({ webhooks: z.array(WebhookSubscription) });
export type WebhookList = z.infer<typeof WebhookList>;
