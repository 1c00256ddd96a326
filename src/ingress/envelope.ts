import {
  EVENT_CATEGORY_OBJECT_TYPES,
  EventEnvelope,
  isKnownEventCategory,
} from '@booksync/service-contract/schemas/index';
import { IngressError } from './errors.js';
import { ObjectId } from './object-id.js';

/** Parses the verified raw body as a 6.2 envelope; anything else is a 400 and never reaches Temporal. */
export function parseEnvelope(rawBody: Buffer): EventEnvelope {
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new IngressError(400, 'malformed_json', 'body is not valid JSON');
  }
  const parsed = EventEnvelope.safeParse(json);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.') || '(root)'))];
    throw new IngressError(400, 'invalid_envelope', `invalid event envelope: ${fields.join(', ')}`);
  }
  const envelope = parsed.data;
  // The id becomes a workflow id: one Temporal would refuse, or one with '/' or control characters, is a
  // permanent error for the sender (400), never a retry (503), and starts nothing.
  const objectId = ObjectId.safeParse(envelope.associated_object_id);
  if (!objectId.success) {
    throw new IngressError(
      400,
      'invalid_object_id',
      `associated_object_id: ${objectId.error.issues[0]?.message ?? 'not a valid id'}`,
    );
  }
  // A known category names its object type (6.5); a mismatch would signal the wrong workflow.
  if (
    isKnownEventCategory(envelope.category) &&
    EVENT_CATEGORY_OBJECT_TYPES[envelope.category] !== envelope.associated_object_type
  ) {
    throw new IngressError(
      400,
      'invalid_envelope',
      `category ${envelope.category} does not carry object type ${envelope.associated_object_type}`,
    );
  }
  return envelope;
}
