import { parseEnv } from 'node:util';
import { readPrivateFile, somethingAt } from '@booksync/private-files';
import type { CommandContext } from '../../cli/command.js';
import { envFileIn, writeEnvSetting } from '../../config/env-file.js';
import type { Settings } from '../../config/settings.js';
import type { Logger } from '../../logging/logger.js';
import { type AccountMapping, type AccountRole, parseAccountMapping } from '../../targets/account-mapping.js';
import { mappingValue, type SetupPlan } from '../../targets/setup/plan.js';

// A target's setup as `booksync targets setup <target>` and the console's Connection page run it, in two
// steps: readPlan (the company's chart read, each role planned: src/targets/setup/plan.ts) and apply (the
// missing accounts created, the mapping written to the settings file and checked as start-up checks it).
// A target plugs in by one entry of `targetSetups` (target-setups.ts).

/** What readPlan read: the plan and where the mapping goes. */
export interface SetupRead {
  plan: SetupPlan;
  /** The company the plan is for, as the target names it (`QuickBooks company 9130...`). */
  company: string;
  /** How many accounts its chart holds. */
  accounts: number;
  /** The settings file the mapping is written to, and TARGET_ACCOUNTS as it says it now. */
  file: string;
  saved: string | undefined;
  /** Releases what reading opened (a connection store's database pool). */
  close(): Promise<void>;
}

export interface SetupContext {
  settings: Settings;
  logger: Logger;
  /** Where each thing done is said, a line at a time. */
  out: (line: string) => void;
}

/** One target's setup. */
export interface TargetSetup<R extends SetupRead = SetupRead> {
  /** The target's name for people (`QuickBooks`). */
  label: string;
  readPlan(settings: Settings, logger: Logger): Promise<R>;
  /**
   * Creates the plan's missing accounts and writes and checks the mapping (`written`); 0 when start-up's
   * check passes with it, else 1. Refuses a plan with a conflict, creating nothing.
   */
  apply(read: R, context: SetupContext): Promise<number>;
}

/** The settings file the other commands read; TARGET_ACCOUNTS as it says it now. */
export function settingsFile(settings: Settings): { file: string; saved: string | undefined } {
  const file = process.env.BOOKSYNC_ENV_FILE || envFileIn(settings.BOOKSYNC_DATA_DIR);
  const saved = somethingAt(file) ? parseEnv(readPrivateFile(file)).TARGET_ACCOUNTS : undefined;
  return { file, saved };
}

/**
 * Writes the mapping, says what changed, and checks it as start-up will (`verify`: the target's verify()
 * under the mapping written).
 */
export async function written(
  plan: SetupPlan,
  created: Partial<Record<AccountRole, string>>,
  context: Pick<CommandContext, 'settings' | 'out'> & {
    file: string;
    saved: string | undefined;
    verify: (accounts: AccountMapping) => Promise<void>;
  },
): Promise<number> {
  const { settings, file, saved, out, verify } = context;
  const value = mappingValue(plan, created) as string;
  const changed = writeEnvSetting(file, 'TARGET_ACCOUNTS', value);
  if (!changed && Object.keys(created).length === 0)
    out(`nothing to change: every role is matched and ${file} maps them`);
  else out(`TARGET_ACCOUNTS ${changed ? 'written to' : 'unchanged in'} ${file}`);
  if (
    settings.TARGET_ACCOUNTS !== undefined &&
    settings.TARGET_ACCOUNTS !== saved &&
    settings.TARGET_ACCOUNTS !== value
  )
    out(
      'TARGET_ACCOUNTS is set in the environment and wins over the file: unset it to use the mapping written',
    );
  try {
    await verify(parseAccountMapping(value));
    out('every role maps to an account of the type it needs: booksync can start');
    return 0;
  } catch (error) {
    out((error as Error).message);
    return 1;
  }
}
