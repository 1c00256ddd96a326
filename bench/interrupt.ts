// Ctrl-C or SIGTERM during a run: stop what the running stage started (Temporal servers, child processes)
// instead of leaving them behind, then exit. The Temporal runtime catches these signals too and would
// otherwise keep the process alive.

const cleanups = new Set<() => Promise<void> | void>();

/** Registers a cleanup for an interrupted run; call the returned function once it is no longer needed. */
export function onInterrupt(cleanup: () => Promise<void> | void): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

export function exitCleanlyOnSignals(log: (line: string) => void): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping what the bench started`);
    const bound = new Promise((resolve) => setTimeout(resolve, 20_000).unref());
    const all = [...cleanups].reverse().map((cleanup) =>
      Promise.resolve()
        .then(cleanup)
        .catch(() => undefined),
    );
    await Promise.race([Promise.all(all), bound]);
    process.exit(130);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/**
 * A Temporal client call still retrying when its stage tore the server down throws from a timer; that
 * leftover must not end the run for the stages after it. Logged, not hidden.
 */
export function surviveLeftoverErrors(log: (line: string) => void): void {
  process.on('uncaughtException', (error) => {
    log(
      `error left over from a stopped stage (ignored): ${error instanceof Error ? error.message : String(error)}`,
    );
  });
}
