import { readFileSync } from 'node:fs';

// Memory and CPU of a process from /proc (Linux): VmRSS now, VmHWM (peak RSS over its life), and the CPU
// time it used (utime + stime, in clock ticks of 10 ms on Linux).

const TICK_MS = 10;

export interface ProcSnapshot {
  rssMiB: number;
  hwmMiB: number;
  cpuMs: number;
}

export function readProc(pid: number): ProcSnapshot | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at state; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuTicks = Number(fields[11]) + Number(fields[12]);
    return { rssMiB: kib('VmRSS') / 1024, hwmMiB: kib('VmHWM') / 1024, cpuMs: cpuTicks * TICK_MS };
  } catch {
    return undefined; // the process is gone
  }
}

export interface ProcWindow {
  /** Highest VmRSS seen by the sampler inside the window. */
  peakRssMiB: number;
  /** VmHWM at the end: peak over the whole life of the process (start-up included). */
  hwmMiB: number;
  lastRssMiB: number;
  /** CPU used inside the window, as a share of one core (100 = one core busy). */
  cpuPercent: number;
  seconds: number;
}

/** Samples a process every `intervalMs` until stop(); stop() sums up the window. */
export function sampleProc(pid: number, intervalMs = 250): { stop(): ProcWindow } {
  const first = readProc(pid);
  const started = performance.now();
  let peak = first?.rssMiB ?? 0;
  let last = first;
  const timer = setInterval(() => {
    const now = readProc(pid);
    if (!now) return;
    last = now;
    peak = Math.max(peak, now.rssMiB);
  }, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      const end = readProc(pid) ?? last;
      const seconds = (performance.now() - started) / 1000;
      const cpuMs = (end?.cpuMs ?? 0) - (first?.cpuMs ?? 0);
      return {
        peakRssMiB: Math.round(Math.max(peak, end?.rssMiB ?? 0)),
        hwmMiB: Math.round(end?.hwmMiB ?? 0),
        lastRssMiB: Math.round(end?.rssMiB ?? 0),
        cpuPercent: Math.round((cpuMs / 10 / Math.max(seconds, 0.001)) * 10) / 10,
        seconds: Math.round(seconds * 10) / 10,
      };
    },
  };
}

/** This process's own memory (process.memoryUsage) in MiB: what a bench child reports to its parent. */
export function ownMemoryMiB() {
  const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
  const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return {
    rssMiB: mib(rss),
    mainHeapTotalMiB: mib(heapTotal),
    mainHeapUsedMiB: mib(heapUsed),
    externalMiB: mib(external),
    arrayBuffersMiB: mib(arrayBuffers),
  };
}
