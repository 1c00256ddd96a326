import type { Logger } from '../logger.js';
import type { FaultInjector } from '../sandbox/faults.js';
import type { Store } from '../store/store.js';
import type { OutboxRelay } from '../webhooks/outbox-relay.js';

/** What every route group gets at registration. */
export interface RouteDeps {
  store: Store;
  logger: Logger;
  relay: OutboxRelay;
  faults: FaultInjector;
  adminToken: string | undefined;
}
