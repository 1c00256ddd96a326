/**
 * Resolves on the first SIGINT or SIGTERM. A second one forces an exit, unless it arrives within a second
 * of the first: a terminal's Ctrl-C reaches every process of the group, and wrappers (npm, tsx) relay it
 * again, so one keypress can arrive twice.
 */
export function untilSignal(onFirst?: (signal: string) => void): Promise<string> {
  return new Promise((resolve) => {
    const handler = (signal: NodeJS.Signals) => {
      process.removeListener('SIGINT', handler);
      process.removeListener('SIGTERM', handler);
      const firstAt = Date.now();
      const force = () => {
        if (Date.now() - firstAt > 1_000) process.exit(130);
      };
      process.on('SIGINT', force);
      process.on('SIGTERM', force);
      onFirst?.(signal);
      resolve(signal);
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  });
}
