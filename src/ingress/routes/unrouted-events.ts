import type { FastifyPluginAsync } from 'fastify';
import type { UnroutedEvents } from '../unrouted-events.js';

export interface UnroutedEventsRoutesOptions {
  unrouted: UnroutedEvents;
}

/** GET /events/unrouted: the last verified events no workflow handles, oldest first. */
export const unroutedEventsRoutes: FastifyPluginAsync<UnroutedEventsRoutesOptions> = async (
  app,
  { unrouted },
) => {
  app.get('/events/unrouted', async () => ({ events: unrouted.list() }));
};
