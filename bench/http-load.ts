import { Agent, request } from 'node:http';
import { type LatencySummary, summarize } from './stats.js';

// An HTTP load generator on node:http with keep-alive connections (no dependency). Closed loop: a fixed
// number of clients, each sending its next request when the previous one answered (the maximum rate).
// Open loop: requests leave on a fixed schedule whatever the answers, and latency counts from the
// scheduled time, so a slow server shows as latency instead of silently lowering the offered rate.

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  mode: 'closed' | 'open';
  concurrency: number;
  /** Open loop: the rate asked for. */
  offeredPerSecond: number | null;
  sent: number;
  ok: number;
  failed: number;
  /** Open loop: requests not sent because maxInFlight were already waiting. */
  shed: number;
  statuses: Record<string, number>;
  seconds: number;
  okPerSecond: number;
  latency: LatencySummary;
}

interface Target {
  baseUrl: string;
  make: (index: number) => LoadRequest;
  durationMs: number;
}

function send(agent: Agent, baseUrl: URL, req: LoadRequest): Promise<number> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body);
    const outgoing = request(
      {
        agent,
        host: baseUrl.hostname,
        port: baseUrl.port,
        method: req.method,
        path: req.path,
        headers,
        timeout: 30_000,
      },
      (response) => {
        response.on('data', () => undefined);
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', () => resolve(0));
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error('timeout')));
    outgoing.on('error', () => resolve(0));
    outgoing.end(req.body);
  });
}

function result(
  mode: LoadResult['mode'],
  concurrency: number,
  offered: number | null,
  statuses: Record<string, number>,
  latencies: number[],
  shed: number,
  seconds: number,
): LoadResult {
  const sent = Object.values(statuses).reduce((a, b) => a + b, 0);
  const ok = Object.entries(statuses)
    .filter(([status]) => status.startsWith('2'))
    .reduce((sum, [, n]) => sum + n, 0);
  return {
    mode,
    concurrency,
    offeredPerSecond: offered,
    sent,
    ok,
    failed: sent - ok,
    shed,
    statuses,
    seconds: Math.round(seconds * 100) / 100,
    okPerSecond: Math.round((ok / seconds) * 10) / 10,
    latency: summarize(latencies),
  };
}

/** `concurrency` clients back to back for durationMs; latencies of the 2xx answers. */
export async function closedLoop(target: Target & { concurrency: number }): Promise<LoadResult> {
  const base = new URL(target.baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: target.concurrency });
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  let index = 0;
  const started = performance.now();
  const deadline = started + target.durationMs;
  const client = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const status = await send(agent, base, target.make(index++));
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status >= 200 && status < 300) latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: target.concurrency }, client));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return result('closed', target.concurrency, null, statuses, latencies, 0, seconds);
}

/** `ratePerSecond` requests a second on schedule for durationMs, at most maxInFlight waiting at once. */
export async function openLoop(
  target: Target & { ratePerSecond: number; maxInFlight: number },
): Promise<LoadResult> {
  const base = new URL(target.baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: target.maxInFlight });
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  const inFlight = new Set<Promise<void>>();
  const intervalMs = 1000 / target.ratePerSecond;
  const total = Math.floor((target.durationMs / 1000) * target.ratePerSecond);
  let shed = 0;
  let index = 0;
  const started = performance.now();
  while (index < total) {
    const now = performance.now();
    while (index < total && started + index * intervalMs <= now) {
      const scheduled = started + index * intervalMs;
      const req = target.make(index++);
      if (inFlight.size >= target.maxInFlight) {
        shed++;
        continue;
      }
      const run = send(agent, base, req).then((status) => {
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status >= 200 && status < 300) latencies.push(performance.now() - scheduled);
        inFlight.delete(run);
      });
      inFlight.add(run);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(5, intervalMs))));
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return result('open', target.maxInFlight, target.ratePerSecond, statuses, latencies, shed, seconds);
}
