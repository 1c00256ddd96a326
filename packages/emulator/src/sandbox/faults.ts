import type { FastifyReply, FastifyRequest } from 'fastify';

export const faultKinds = ['500', '429', 'timeout', 'drop'] as const;
export type FaultKind = (typeof faultKinds)[number];

export interface FaultConfig {
  /** Probability 0..1 that a non-sandbox request of the organization meets a fault. */
  rate: number;
  kinds: FaultKind[];
  /** How long a 'timeout' fault holds the request before closing the socket (default 15 s). */
  timeoutMs?: number;
}

/**
 * Reliability tests' weather, per organization, in memory. '500' answers plain text (part 7 allows it),
 * '429' answers {error}, 'timeout' holds the request then closes the connection, and 'drop' lets the request
 * take effect and then closes the connection instead of answering: the case idempotent retries exist for.
 */
export class FaultInjector {
  private readonly configs = new Map<string, FaultConfig>();

  private readonly random: () => number;
  constructor(random: () => number = Math.random) {
    this.random = random;
  }

  set(orgId: string, config: FaultConfig): void {
    if (config.rate <= 0 || config.kinds.length === 0) this.configs.delete(orgId);
    else this.configs.set(orgId, config);
  }

  get(orgId: string): FaultConfig {
    return this.configs.get(orgId) ?? { rate: 0, kinds: [] };
  }

  /** Picks the fault for one request, or none. */
  pick(orgId: string): FaultKind | undefined {
    const config = this.configs.get(orgId);
    if (!config || this.random() >= config.rate) return undefined;
    return config.kinds[Math.floor(this.random() * config.kinds.length)];
  }

  /** onRequest part: answers instead of the route for 500, 429 and timeout; marks 'drop' for onSend. */
  async before(orgId: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const kind = this.pick(orgId);
    if (kind === undefined) return;
    request.log.warn({ fault: kind }, 'fault injected');
    if (kind === '500') {
      await reply.code(500).type('text/plain').send('Internal Server Error (injected)');
    } else if (kind === '429') {
      await reply.code(429).send({ error: 'rate limited (injected)' });
    } else if (kind === 'timeout') {
      const holdMs = this.get(orgId).timeoutMs ?? 15_000;
      await new Promise((resolve) => setTimeout(resolve, holdMs));
      request.raw.socket.destroy();
      await reply.hijack();
    } else {
      dropped.add(request);
    }
  }

  /** onSend part: the work is done and committed; the answer is lost. */
  isDropped(request: FastifyRequest): boolean {
    return dropped.has(request);
  }
}

const dropped = new WeakSet<FastifyRequest>();
