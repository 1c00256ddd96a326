import type { Settings } from '../config/settings.js';
import { CommandError } from './command.js';

/** A setting a command cannot run without, even though `start` would embed it. */
export function requireSetting<K extends keyof Settings>(
  settings: Settings,
  name: K,
  command: string,
): NonNullable<Settings[K]> {
  const value = settings[name];
  if (value === undefined || value === null) {
    throw new CommandError(
      `${String(name)}: required by 'booksync ${command}' (set it in the environment or .env)`,
    );
  }
  return value as NonNullable<Settings[K]>;
}
