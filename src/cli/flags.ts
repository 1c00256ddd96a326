import { CommandError } from './command.js';

// What the commands' argument parsers share: walking the flags, a flag's value, --timeout.

/**
 * Calls `each` for every argument in turn; its `value()` takes the next argument as the flag's value, and
 * refuses (`<command>: <flag> needs a value`) when there is none or it is another flag.
 */
export function eachFlag(
  command: string,
  args: readonly string[],
  each: (flag: string, value: () => string) => void,
): void {
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]!;
    const value = () => {
      const v = args[++i];
      if (!v || v.startsWith('--')) throw new CommandError(`${command}: ${flag} needs a value`);
      return v;
    };
    each(flag, value);
  }
}

/** --timeout's value: a number of seconds above 0. */
export function timeoutSecondsOf(command: string, text: string): number {
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new CommandError(`${command}: --timeout takes a number of seconds`);
  }
  return seconds;
}
