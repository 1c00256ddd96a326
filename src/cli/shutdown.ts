/** Resolves on the first SIGINT or SIGTERM; a second one exits at once. */
export function untilSignal(onFirst?: (signal: string) => void): Promise<string> {
  return new Promise((resolve) => {
    const handler = (signal: NodeJS.Signals) => {
      process.removeListener('SIGINT', handler);
      process.removeListener('SIGTERM', handler);
      process.once('SIGINT', () => process.exit(130));
      onFirst?.(signal);
      resolve(signal);
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  });
}
