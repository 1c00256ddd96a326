import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { authenticateAdmin, orgIdOf } from '../auth/authenticate.js';
import { EmulatorHttpError } from '../errors.js';
import type { RouteDeps } from '../routes/deps.js';
import { parseInput } from '../routes/input.js';
import { maxClockOffsetMs } from '../store/clock.js';
import { releaseOrders } from '../webhooks/outbox-relay.js';
import { faultKinds } from './faults.js';

// E17: each part is finite, non-negative and within the total bound on its own (the clock checks the sum).
const AdvanceBody = z
  .object({
    days: z
      .number()
      .min(0)
      .max(maxClockOffsetMs / 86_400_000)
      .optional(),
    seconds: z
      .number()
      .min(0)
      .max(maxClockOffsetMs / 1000)
      .optional(),
  })
  .refine((body) => body.days !== undefined || body.seconds !== undefined, {
    message: 'days or seconds is required',
  });

const FaultsBody = z.object({
  rate: z.number().min(0).max(1),
  kinds: z.array(z.enum(faultKinds)),
  timeoutMs: z.int().min(1).max(120_000).optional(),
});

const ReleaseBody = z.object({
  order: z.enum(releaseOrders).default('as-happened'),
  times: z.int().min(1).max(3).default(1),
});

/** Decision “Sandbox controls”: the emulator clock (shared by every organization) and per-organization fault injection. */
export function sandboxControlRoutes(
  app: FastifyInstance,
  { store, faults, relay, adminToken }: RouteDeps,
): void {
  app.get('/sandbox/clock', async () => ({
    now: store.clock.now().toISOString(),
    offsetMs: store.clock.offsetMs(),
  }));

  // E17: the clock is every organization's, so moving it takes the admin token, not a tenant's key.
  app.post('/sandbox/clock/advance', { onRequest: authenticateAdmin(adminToken) }, async (request) => {
    const input = parseInput(AdvanceBody, request.body, 'body', 'INVALID_CLOCK_ADVANCE');
    store.clock.advance(((input.days ?? 0) * 86_400 + (input.seconds ?? 0)) * 1000);
    return { now: store.clock.now().toISOString(), offsetMs: store.clock.offsetMs() };
  });

  app.post('/sandbox/faults', async (request) => {
    const input = parseInput(FaultsBody, request.body);
    faults.set(orgIdOf(request), input);
    return faults.get(orgIdOf(request));
  });

  app.get('/sandbox/faults', async (request) => faults.get(orgIdOf(request)));

  // The organization's webhooks held back (a receiver seeing everything late), then released in the order the
  // events happened or last first, each delivered up to three times.
  app.post('/sandbox/webhooks/hold', async (request) => {
    relay.hold(orgIdOf(request));
    return { held: true };
  });

  app.post('/sandbox/webhooks/release', async (request) => {
    const input = parseInput(ReleaseBody, request.body ?? {});
    const orgId = orgIdOf(request);
    if (!relay.isHeld(orgId)) throw new EmulatorHttpError(409, 'webhooks are not held');
    return { released: relay.release(orgId, input) };
  });
}
