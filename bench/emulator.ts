import { startChild } from './child.js';
import { closedLoop, type LoadResult } from './http-load.js';
import { onInterrupt } from './interrupt.js';
import { type ProcWindow, sampleProc } from './proc-stats.js';

// Stage 5: the emulator (child process, SQLite file) on a read, GET /paymentLink/{id}, and on a write,
// POST /serviceBanking/checkDeposits/{id}/apply (1 cent per request, unique externalReferenceId, round-robin
// over many links, all on one big deposit), each against a bare Fastify route in the same process answering
// the same JSON with no work (authentication, SQLite, views) behind it. The apply run is measured in two
// halves: a drop in the second half means the cost of an apply grows with the applications already made.

export interface EmulatorBenchOptions {
  durationMs: number;
  concurrency: number;
  links: number;
  profile?: string | undefined;
  progress: (line: string) => void;
}

export interface EmulatorResult {
  links: number;
  read: LoadResult;
  bareRead: LoadResult;
  readRatio: number;
  applyFirstHalf: LoadResult;
  applySecondHalf: LoadResult;
  bareWrite: LoadResult;
  applyRatio: number;
  emulatorProcess: ProcWindow;
}

interface Ready {
  emulatorUrl: string;
  bareUrl: string;
  apiKey: string;
  links: string[];
  depositId: string;
}

export async function benchEmulator(options: EmulatorBenchOptions): Promise<EmulatorResult> {
  const child = await startChild<Ready>(
    'emulator-server.ts',
    { links: options.links },
    { profile: options.profile },
  );
  const forget = onInterrupt(() => child.stop());
  try {
    const { emulatorUrl, bareUrl, apiKey, links, depositId } = child.ready;
    const auth = { authorization: `Bearer ${apiKey}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const load = (
      baseUrl: string,
      make: Parameters<typeof closedLoop>[0]['make'],
      durationMs = options.durationMs,
    ) => closedLoop({ baseUrl, make, durationMs, concurrency: options.concurrency });
    const sampler = sampleProc(child.pid);

    options.progress(`emulator: GET /paymentLink/{id}, ${options.concurrency} clients`);
    const read = await load(emulatorUrl, (i) => ({
      method: 'GET',
      path: `/paymentLink/${links[i % links.length]}`,
      headers: auth,
    }));
    const bareRead = await load(bareUrl, (i) => ({
      method: 'GET',
      path: `/paymentLink/${links[i % links.length]}`,
    }));

    options.progress('emulator: POST .../apply (two halves), then the bare POST');
    const apply = (i: number) => ({
      method: 'POST' as const,
      path: `/serviceBanking/checkDeposits/${depositId}/apply`,
      headers: json,
      body: JSON.stringify({
        paymentLinkId: links[i % links.length],
        amountCents: 1,
        externalReferenceId: `bench-${i}`,
      }),
    });
    let serial = 0;
    const half = options.durationMs / 2;
    const applyFirstHalf = await load(emulatorUrl, () => apply(serial++), half);
    const applySecondHalf = await load(emulatorUrl, () => apply(serial++), half);
    const bareWrite = await load(bareUrl, (i) => ({ ...apply(i), path: '/apply' }));
    const applied = applyFirstHalf.ok + applySecondHalf.ok;
    const applyPerSecond = applied / (applyFirstHalf.seconds + applySecondHalf.seconds);
    const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;
    return {
      links: links.length,
      read,
      bareRead,
      readRatio: ratio(read.okPerSecond, bareRead.okPerSecond),
      applyFirstHalf,
      applySecondHalf,
      bareWrite,
      applyRatio: ratio(applyPerSecond, bareWrite.okPerSecond),
      emulatorProcess: sampler.stop(),
    };
  } finally {
    forget();
    await child.stop();
  }
}
