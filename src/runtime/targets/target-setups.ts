import type { Settings } from '../../config/settings.js';
import type { Logger } from '../../logging/logger.js';
import type { SetupRead, TargetSetup } from './target-setup.js';

// The targets whose setup (target-setup.ts) the console's Connection page offers, each loaded only when that
// target is asked for. A target plugs in here by name.

/** Each target with a setup, by name, loaded only when asked for. */
export const targetSetups: Readonly<Record<string, () => Promise<TargetSetup>>> = {
  quickbooks: async () => (await import('./quickbooks-setup.js')).quickBooksSetup,
  tryton: async () => (await import('./tryton-setup.js')).trytonSetup,
  xero: async () => (await import('./xero-setup.js')).xeroSetup,
};

/** The setup of `target`, or null when it has none. */
export async function targetSetup(target: string): Promise<TargetSetup | null> {
  const load = Object.hasOwn(targetSetups, target) ? targetSetups[target] : undefined;
  return load ? load() : null;
}

/** A target's setup bound to a process's settings and logger (the console's Connection page). */
export interface BoundTargetSetup {
  label: string;
  readPlan(): Promise<SetupRead>;
  apply(read: SetupRead, out: (line: string) => void): Promise<number>;
}

/** `target`'s setup under `settings`, or null when the target has none. */
export function boundTargetSetups(
  settings: Settings,
  logger: Logger,
): (target: string) => Promise<BoundTargetSetup | null> {
  return async (target) => {
    const setup = await targetSetup(target);
    if (!setup) return null;
    return {
      label: setup.label,
      readPlan: () => setup.readPlan(settings, logger),
      apply: (read, out) => setup.apply(read, { settings, logger, out }),
    };
  };
}
