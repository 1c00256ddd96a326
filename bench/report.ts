import type { AchRun, AchWindowsResult } from './ach-windows.js';
import type { BackfillBenchResult } from './backfill.js';
import type { EmulatorResult } from './emulator.js';
import type { EndToEndResult } from './end-to-end.js';
import type { IngressResult } from './ingress.js';
import type { LatencyResult } from './latency.js';
import type { WorkerTaskLatencies } from './payment-stack.js';
import type { QuickBooksPushResult } from './quickbooks-push.js';
import type { SignatureResult } from './signature.js';
import type { LatencySummary } from './stats.js';
import type { TrytonPushResult } from './tryton-push.js';
import type { XeroPushResult } from './xero-push.js';

// The JSON written to bench/results/latest.json, and the table printed from it.

export interface BenchResults {
  startedAt: string;
  mode: 'quick' | 'full';
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string; loadAverage1mAtStart: number };
  config: unknown;
  stages: {
    signature?: SignatureResult;
    ingress?: IngressResult;
    e2e?: EndToEndResult;
    ach?: AchWindowsResult;
    emulator?: EmulatorResult;
    backfill?: BackfillBenchResult;
    tryton?: TrytonPushResult;
    quickbooks?: QuickBooksPushResult;
    xero?: XeroPushResult;
    latency?: Partial<LatencyResult>;
  };
  /** Wall seconds of each stage that ran, set-up and tear-down included (failed ones too). */
  stageSeconds: Record<string, number>;
  errors: Record<string, string>;
  totalSeconds?: number;
}

type Row = [stage: string, measure: string, value: string, baseline: string, ratio: string];

const n = (value: number) => value.toLocaleString('en-US', { maximumFractionDigits: 1 });
const lat = (l: LatencySummary) => `p50 ${n(l.p50Ms)} ms, p99 ${n(l.p99Ms)} ms`;

function rows(results: BenchResults): Row[] {
  const out: Row[] = [];
  const { signature, ingress, e2e, ach, emulator } = results.stages;
  if (signature) {
    const hmac = `HMAC ${n(signature.hmacPerSecond)}/s`;
    out.push([
      'signature',
      'verify, 1 secret, 1 KiB',
      `${n(signature.verifyOneSecretPerSecond)}/s`,
      hmac,
      `${signature.ratioOneSecret}`,
    ]);
    out.push([
      'signature',
      'verify, 3 secrets (match last)',
      `${n(signature.verifyThreeSecretsPerSecond)}/s`,
      hmac,
      `${signature.ratioThreeSecrets}`,
    ]);
  }
  if (ingress) {
    for (const open of ingress.openLoop) {
      out.push([
        'ingress',
        `open loop ${open.offeredPerSecond}/s`,
        `${n(open.okPerSecond)}/s acked, ${lat(open.latency)}${open.failed + open.shed > 0 ? `, ${open.failed} failed, ${open.shed} shed` : ''}`,
        '',
        '',
      ]);
    }
    const c = ingress.closedLoop;
    const bare = ingress.bareSignalWithStart;
    out.push([
      'ingress',
      `closed loop, ${c.concurrency} clients`,
      `${n(c.okPerSecond)}/s, ${lat(c.latency)}`,
      `bare signalWithStart ${n(bare.perSecond)}/s, ${lat(bare.latency)}`,
      `${ingress.ratio}`,
    ]);
    if (ingress.secure) {
      const on = ingress.secure.closedLoop;
      out.push([
        'ingress',
        `  encryption + tracing on (${ingress.secure.traceExports} OTLP exports)`,
        `${n(on.okPerSecond)}/s, ${lat(on.latency)}`,
        `off ${n(c.okPerSecond)}/s before, ${n(ingress.secure.offAgain.okPerSecond)}/s after`,
        `${ingress.secure.acksRatio} (goal ≥ ${ingress.secure.goal})`,
      ]);
    }
    out.push([
      'ingress',
      'ingress process under max load',
      `CPU ${ingress.ingressProcess.cpuPercent}% of a core, RSS peak ${ingress.ingressProcess.peakRssMiB} MiB`,
      '',
      '',
    ]);
  }
  if (e2e) {
    for (const [name, p] of [
      [`paced ${e2e.paced.offeredPerSecond}/s`, e2e.paced],
      [`burst (${e2e.burst.payConcurrency} pay calls in flight)`, e2e.burst],
    ] as const) {
      out.push([
        'e2e',
        `${p.payments} card payments, ${name}`,
        `${n(p.bookedPerSecond)} booked/s; pay→booked ${lat(p.payToBooked)}`,
        `event→booked ${lat(p.emittedToBooked)}`,
        '',
      ]);
      out.push([
        'e2e',
        '  where the time went (p50)',
        `event→delivery ${n(p.hops.emittedToDeliveryAttempt.p50Ms)} ms, POST ${n(p.hops.deliveryAttempt.p50Ms)} ms, acked→booked ${n(p.hops.acknowledgedToBooked.p50Ms)} ms`,
        '',
        '',
      ]);
    }
    if (e2e.bare) {
      const b = e2e.bare;
      out.push([
        'e2e',
        `  booksync's own part: acked→booked, paced (${b.shape.booksync.workflowTasks} workflow tasks, ${b.shape.booksync.activities} activity)`,
        lat(e2e.paced.hops.acknowledgedToBooked),
        `bare pipeline ${b.payments} at ${b.offeredPerSecond}/s (${b.shape.bare.workflowTasks} tasks, ${b.shape.bare.activities} activity): acked→done ${lat(b.acknowledgedToDone)}`,
        `p50 ${b.p50Ratio}, p99 ${b.p99Ratio} (goal ≥ ${b.goal})`,
      ]);
    }
    if (e2e.directDeliveries) {
      const d = e2e.directDeliveries;
      out.push([
        'e2e',
        `  the same, webhooks by HTTP off the server: ${d.paced.payments} paced ${d.paced.offeredPerSecond}/s, acked→booked`,
        `${lat(d.paced.hops.acknowledgedToBooked)} (${n(d.paced.bookedPerSecond)} booked/s)`,
        `bare pipeline acked→done ${lat(d.bare.acknowledgedToDone)}`,
        `p50 ${d.bare.p50Ratio}, p99 ${d.bare.p99Ratio} (goal ≥ ${d.bare.goal})`,
      ]);
    }
    // Where acked → booked goes in each worker, from its Temporal SDK metrics (means over the paced run).
    const taskLine = (tasks: WorkerTaskLatencies) => {
      const mean = (name: string) => n(tasks[name]?.meanMs ?? Number.NaN);
      return `workflow task queued ${mean('workflow_task_schedule_to_start_latency')} ms, run ${mean('workflow_task_execution_latency')} ms; activity queued ${mean('activity_schedule_to_start_latency')} ms, run ${mean('activity_execution_latency')} ms; server requests ${mean('request_latency')} ms`;
    };
    for (const [name, tasks, bare] of [
      ['paced', e2e.paced.workerTasks, e2e.bare?.workerTasks],
      [
        'webhooks off the server',
        e2e.directDeliveries?.paced.workerTasks,
        e2e.directDeliveries?.bare.workerTasks,
      ],
    ] as const) {
      if (!tasks) continue;
      out.push([
        'e2e',
        `  the worker's Temporal tasks, ${name} (SDK means)`,
        taskLine(tasks),
        bare ? `bare: ${taskLine(bare)}` : '',
        '',
      ]);
    }
    if (e2e.secure) {
      const on = e2e.secure.paced;
      out.push([
        'e2e',
        `  encryption + tracing on, ${on.payments} paced (${e2e.secure.traceExports} OTLP exports)`,
        `pay→booked ${lat(on.payToBooked)}`,
        `off ${lat(e2e.paced.payToBooked)}`,
        `p99 ${e2e.secure.p99Ratio} (goal ≤ ${e2e.secure.goal}), p50 ${e2e.secure.p50Ratio}`,
      ]);
    }
    out.push([
      'e2e',
      'worker (bin/booksync.js worker)',
      `RSS peak ${e2e.worker.peakRssMiB} MiB while booking, VmHWM ${e2e.worker.hwmMiB} MiB, CPU ${e2e.worker.cpuPercent}%`,
      `start-up ${e2e.workerStartSeconds} s; syncPayment mean ${e2e.syncPaymentActivity.meanMs} ms; emulator GETs ${lat(e2e.emulatorReads)}`,
      '',
    ]);
  }
  if (ach) {
    const runRows = (label: string, run: AchRun) => {
      out.push([
        'ach',
        `${label}: ${n(run.opened)} of ${n(run.windows)} windows opened`,
        `${n(run.openedPerSecond)}/s (${run.openSeconds} s)`,
        `signalWithStart ${n(run.startedPerSecond)}/s`,
        '',
      ]);
      out.push([
        'ach',
        `${label}: worker idle, all waiting`,
        `RSS ${run.workerIdle.lastRssMiB} MiB, CPU ${run.workerIdle.cpuPercent}%, ${n(run.idleMemory.cachedWorkflows)} cached`,
        `peak while opening ${run.workerWhileOpening.peakRssMiB} MiB`,
        '',
      ]);
      out.push([
        'ach',
        `${label}: windows closed (time skipping)`,
        `${n(run.closed)} of ${n(run.opened)} in ${run.closeSeconds} s = ${n(run.closedPerSecond)}/s`,
        `worker CPU ${run.workerWhileClosing.cpuPercent}% (${run.workerCpuMsPerClose} ms a close), RSS peak ${run.workerWhileClosing.peakRssMiB} MiB`,
        '',
      ]);
    };
    const settings = [
      ...Object.entries(ach.bounded.env).map(([k, v]) => `${k}=${v}`),
      ...ach.bounded.nodeFlags,
    ];
    const flags = settings.length > 0 ? `, ${settings.join(' ')}` : '';
    runRows(`cache ${n(ach.bounded.maxCachedWorkflows)}${flags}`, ach.bounded);
    out.push([
      'ach',
      `peak RSS, ${n(ach.windows)} windows (target ${ach.targetRssMiB} MiB)`,
      `${ach.bounded.peakRssMiB} MiB${ach.withinTarget ? '' : ' (over)'}`,
      `at start ${ach.bounded.workerAtStart.rssMiB} MiB`,
      '',
    ]);
    if (ach.replay) {
      runRows(`cache ${n(ach.replay.cached.maxCachedWorkflows)}`, ach.replay.cached);
      runRows(`cache ${n(ach.replay.bounded.maxCachedWorkflows)}`, ach.replay.bounded);
      out.push([
        'ach',
        `replay at close, ${n(ach.replay.windows)} windows`,
        `bounded ${n(ach.replay.bounded.closedPerSecond)} closes/s`,
        `cached ${n(ach.replay.cached.closedPerSecond)} closes/s; CPU a close x${ach.replay.cpuPerCloseRatio}`,
        `${ach.replay.closeRateRatio}`,
      ]);
    }
  }
  if (emulator) {
    out.push([
      'emulator',
      'GET /paymentLink/{id}',
      `${n(emulator.read.okPerSecond)}/s, ${lat(emulator.read.latency)}`,
      `bare ${n(emulator.bareRead.okPerSecond)}/s`,
      `${emulator.readRatio}`,
    ]);
    out.push([
      'emulator',
      'POST .../apply (1st half, 2nd half)',
      `${n(emulator.applyFirstHalf.okPerSecond)}/s, ${n(emulator.applySecondHalf.okPerSecond)}/s; ${lat(emulator.applySecondHalf.latency)}`,
      `bare ${n(emulator.bareWrite.okPerSecond)}/s`,
      `${emulator.applyRatio}`,
    ]);
  }
  const backfill = results.stages.backfill;
  if (backfill) {
    const b = backfill.backfill;
    out.push([
      'backfill',
      `${n(backfill.seeded.payments)} card payments on links, ${backfill.seeded.payouts} payouts, --since ${backfill.since} (all imported${backfill.oneByOne ? ', entries one by one' : ''})`,
      `${n(b.objectsPerSecond)} objects/s (${n(b.listed)} listed, ${n(b.examinedTotal)} examined, ${b.seconds} s)`,
      `bare list-and-get ${n(backfill.bare.objectsPerSecond)}/s (list only ${n(backfill.bare.listOnlyObjectsPerSecond)}/s)`,
      `${backfill.ratio} (goal ≥ ${backfill.goal})`,
    ]);
    out.push([
      'backfill',
      '  entries written, worker',
      `${n(b.entriesWritten)} entries (${n(b.entriesPerSecond)}/s), worker RSS peak ${backfill.workerPeakRssMiB} MiB, CPU ${backfill.worker.cpuPercent}%`,
      `emulator CPU ${backfill.emulatorProcess.cpuPercent}%; books balanced, clearing ${n(backfill.books.processorClearingCents / 100)} USD as held`,
      `${backfill.listOnlyRatio} vs list only`,
    ]);
  }
  const tryton = results.stages.tryton;
  if (tryton) {
    out.push([
      'tryton',
      `${n(tryton.documents)} payments pushed (move, post, settle; no look-up)`,
      `${n(tryton.pushedPerSecond)}/s`,
      `bare create+post ${n(tryton.bareCreatePostPerSecond)}/s`,
      `${tryton.ratio}`,
    ]);
    for (const [kind, p] of Object.entries(tryton.rpcs ?? {})) {
      out.push([
        'tryton',
        `  time per ${kind} push, by Tryton call (${n(p.documents)} ${kind}s, ${p.callsPerDocument} JSON-RPC calls each)`,
        `${n(p.msPerDocument)} ms`,
        p.top.map((c) => `${c.method} ${c.perDocument}× ${n(c.meanMs)} ms`).join(', '),
        '',
      ]);
    }
    if (tryton.backlog) {
      const b = tryton.backlog;
      out.push([
        'tryton',
        `  a backlog of ${n(b.documents)} documents (invoice and payment a link), batched (pushMany)${b.queue ? ', task queue on' : ''}`,
        `${n(b.batchedPerSecond)}/s`,
        `one by one ${n(b.oneByOnePerSecond)}/s`,
        `${Math.round((b.batchedPerSecond / b.oneByOnePerSecond) * 100) / 100}`,
      ]);
      if (b.bareBatchedPerSecond !== undefined)
        out.push([
          'tryton',
          '  the same backlog batched, against a bare batched create+post of the same documents (goal ≥ 0.6)',
          `${n(b.batchedPerSecond)}/s`,
          `bare batched ${n(b.bareBatchedPerSecond)}/s`,
          `${b.ratioToBare}`,
        ]);
      if (b.batchRpcs)
        out.push([
          'tryton',
          `  time per batched document, by Tryton call (${b.batchRpcs.callsPerDocument} calls each)`,
          `${n(b.batchRpcs.msPerDocument)} ms`,
          b.batchRpcs.top.map((c) => `${c.method} ${c.perDocument}× ${n(c.meanMs)} ms`).join(', '),
          '',
        ]);
    }
    if (tryton.atScale)
      out.push([
        'tryton',
        `the same with ${n(tryton.atScale.moves)} moves of history in Tryton (bare ${n(tryton.atScale.bareCreatePostPerSecond)}/s)`,
        `${n(tryton.atScale.pushedPerSecond)}/s`,
        `empty database ${n(tryton.pushedPerSecond)}/s`,
        `${tryton.atScale.ratioToEmpty}`,
      ]);
  }
  const quickbooks = results.stages.quickbooks;
  if (quickbooks) {
    out.push([
      'quickbooks',
      `${n(quickbooks.entries)} entries at QBO's ${quickbooks.limitRequestsPerMinute} requests/min, batched (${quickbooks.batched.requestsPerEntry} req/entry, ≤${quickbooks.maxInFlight} in flight)`,
      `${n(quickbooks.batched.entriesPerMinute)}/min`,
      `one by one ${n(quickbooks.oneByOne.entriesPerMinute)}/min (${quickbooks.oneByOne.requestsPerEntry} req/entry)`,
      `${quickbooks.ratio}`,
    ]);
  }
  const xero = results.stages.xero;
  if (xero) {
    out.push([
      'xero',
      `${n(xero.payments)} payments (${n(xero.entries)} entries) at Xero's ${xero.limitCallsPerMinute} calls/min, batched (${xero.batched.callsPerPayment} calls/payment, ≤${xero.maxInFlight} in flight, ≤${xero.maxPerMinute}/min, ${n(xero.batched.paymentsPerDay)} payments/day in ${n(xero.limitCallsPerDay)} calls)`,
      `${n(xero.batched.paymentsPerMinute)} payments/min`,
      `one by one ${n(xero.oneByOne.paymentsPerMinute)}/min (${xero.oneByOne.callsPerPayment} calls/payment)`,
      `${xero.ratio}`,
    ]);
  }
  const latency = results.stages.latency;
  if (latency) {
    const { tryton: t, quickbooks: q } = latency;
    if (t)
      out.push([
        'latency',
        `${t.payments} card payments to Tryton, paced ${t.offeredPerSecond}/s (bare create+post ${n(t.bareCreatePostPerSecond)}/s)`,
        `booked→posted ${lat(t.bookedToPosted)} (goal p99 ≤ ${n(t.goalP99Ms)} ms)`,
        `pay→posted ${lat(t.payToPosted)}; pay→booked ${lat(t.payToBooked)}; ${t.postedPerSecond} posted/s`,
        '',
      ]);
    for (const p of t?.sweep?.paces ?? [])
      out.push([
        'latency',
        `  ${p.payments} card payments to Tryton, paced ${p.offeredPerSecond}/s`,
        `booked→posted ${lat(p.bookedToPosted)}`,
        `${p.postedPerSecond} posted/s`,
        '',
      ]);
    if (t?.sweep)
      out.push([
        'latency',
        '  the pace where Tryton p99 crosses 2 s (goal ≥ 2.5/s)',
        t.sweep.crossesAtPerSecond === null ? 'not within the paces run' : `${t.sweep.crossesAtPerSecond}/s`,
        `highest under the goal ${t.sweep.highestUnderGoalPerSecond ?? '-'}/s`,
        '',
      ]);
    if (q)
      out.push([
        'latency',
        `${q.payments} card payments to the QBO double, paced ${q.offeredPerSecond}/s (½ of QBO's ${q.boundBy}/min at ${q.warmupRequestsPerPayment} req, ${q.warmupBatchesPerPayment} batch req/payment)`,
        `booked→posted ${lat(q.bookedToPosted)} (goal p99 ≤ ${n(q.goalP99Ms)} ms)`,
        `pay→posted ${lat(q.payToPosted)}; ${q.requestsPerPayment} req (${q.batchesPerPayment} batch)/payment, ${q.refusedForLimit} refused`,
        '',
      ]);
  }
  for (const [stage, error] of Object.entries(results.errors)) {
    out.push([stage, 'FAILED', error.split('\n')[0] ?? '', '', '']);
  }
  return out;
}

/** The table, then each stage's wall seconds in `order` (the run's order of stages). */
export function printReport(results: BenchResults, order: readonly string[]): void {
  const header: Row = ['stage', 'measure', 'value', 'baseline', 'ratio'];
  const table = [header, ...rows(results)];
  const widths = header.map((_, col) => Math.max(...table.map((row) => row[col]!.length)));
  const line = (row: Row) => row.map((cell, col) => cell.padEnd(widths[col]!)).join(' | ');
  console.log(
    `\nbooksync bench (${results.mode}), ${results.machine.cpus} cores, node ${results.machine.node}, ${results.totalSeconds ?? '?'} s`,
  );
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const row of table.slice(1)) console.log(line(row));
  const seconds = order.filter((stage) => results.stageSeconds[stage] !== undefined);
  if (seconds.length > 0)
    console.log(
      `\nseconds per stage: ${seconds.map((stage) => `${stage} ${results.stageSeconds[stage]}`).join(', ')}`,
    );
}
