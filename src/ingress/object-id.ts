import { z } from 'zod';

// The one rule for a service id arriving at booksync's doors (a webhook's associated_object_id, a command's
// path ids). Ids are opaque, but they end up in workflow ids and ledger keys: no whitespace, control
// characters, '/', '#', ',' or ';', and short enough for Temporal's id limit with any prefix.
export const ObjectId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\s\p{Cc}/#,;]+$/u, 'an id without whitespace, control characters, "/", "#", "," or ";"');
