import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { typescriptLoader } from '../test/support/typescript-entry.js';

// The servers under load run in child processes, apart from the load generator, so each has its own event
// loop and its memory and CPU can be read from /proc. A child is a TypeScript entry run with the project's loader
// (bin/typescript-loader.js) and an IPC channel: it sends { type: 'ready', ... } once serving and exits cleanly on { type: 'stop' } (a clean
// exit is what lets --cpu-prof write its profile).

export const benchDir = path.dirname(fileURLToPath(import.meta.url));
export const profileDir = path.join(benchDir, 'results', 'profiles');

export interface BenchChild<Ready> {
  process: ChildProcess;
  pid: number;
  ready: Ready;
  /** Request/response over IPC: sends { type, ...body } and resolves with the child's answer to it. */
  ask<T>(type: string, body?: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

/**
 * Node flags that make a child write CPU profiles into bench/results/profiles/<profile>-<time>/ when
 * `profile` is set: one file per thread (the main thread's profile is the big one; tsx's loader, where Node
 * has no type stripping, runs in a thread of its own).
 */
export function profileFlags(profile: string | undefined): string[] {
  if (!profile) return [];
  const dir = path.join(profileDir, `${profile}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

export function waitForExit(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export async function startChild<Ready>(
  entry: string,
  input: unknown,
  options: {
    profile?: string | undefined;
    startTimeoutMs?: number;
    /** More node flags for the child (V8 heap flags, for one). */
    nodeFlags?: string[];
    /** More environment for the child (MALLOC_ARENA_MAX, for one). */
    env?: Record<string, string>;
  } = {},
): Promise<BenchChild<Ready>> {
  const child = fork(path.join(benchDir, entry), [JSON.stringify(input)], {
    execArgv: ['--import', typescriptLoader, ...(options.nodeFlags ?? []), ...profileFlags(options.profile)],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
  });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  // A child that dies (a worker out of heap, for one) fails what was asked of it and everything asked after,
  // so its stage fails and the bench goes on with the next; an answer that never comes would leave the
  // run's top-level await unsettled and end it with exit 13, every later stage unrun.
  let exited: Error | undefined;
  child.once('exit', (code, signal) => {
    exited = new Error(`${entry} exited with ${signal ?? code}`);
    for (const { reject } of pending.values()) reject(exited);
    pending.clear();
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${entry} not ready in time`)),
      options.startTimeoutMs ?? 60_000,
    );
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code} before ready`)));
    child.on('message', (message: { type: string; id?: number; [key: string]: unknown }) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(message as unknown as Ready);
      } else if (message.type === 'answer' && message.id !== undefined) {
        pending.get(message.id)?.resolve(message.body);
        pending.delete(message.id);
      }
    });
  }).catch((error) => {
    child.kill('SIGKILL');
    throw error;
  });
  return {
    process: child,
    pid: child.pid!,
    ready,
    ask<T>(type: string, body: Record<string, unknown> = {}) {
      const id = nextId++;
      if (exited) return Promise.reject(exited);
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        child.send({ type, id, ...body }, (error) => {
          if (error) {
            pending.delete(id);
            reject(exited ?? error);
          }
        });
      });
    },
    async stop() {
      if (child.connected) child.send({ type: 'stop' });
      await waitForExit(child, 30_000);
    },
  };
}

/** In a child: answers the parent's requests; 'stop' runs `stop` and exits. */
export function serveParent(
  handlers: Record<string, (body: Record<string, unknown>) => unknown>,
  stop: () => Promise<void>,
): void {
  process.on('message', async (message: { type: string; id?: number; [key: string]: unknown }) => {
    if (message.type === 'stop') {
      await stop().catch((error) => console.error(error));
      process.exit(0);
    }
    const handler = handlers[message.type];
    if (handler) process.send?.({ type: 'answer', id: message.id, body: await handler(message) });
  });
  // The parent died: do not outlive it.
  process.on('disconnect', () => process.exit(0));
}

export function childInput<T>(): T {
  return JSON.parse(process.argv[2] ?? '{}') as T;
}
