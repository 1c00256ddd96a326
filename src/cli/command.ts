import type { Settings } from '../config/settings.js';
import type { Logger } from '../logging/logger.js';

export interface CommandContext {
  args: string[];
  settings: Settings;
  logger: Logger;
  /** Where human-facing output goes (the terminal), apart from logs. */
  out: (line: string) => void;
}

export interface Command {
  summary: string;
  usage: string;
  /** Runs a Temporal worker or client in this process: the CLI starts tracing (OTEL_*) first. */
  usesTemporal?: boolean;
  /**
   * Runs a worker for long: the CLI installs the Temporal SDK's native runtime first, with the SDK's own metrics
   * when TEMPORAL_SDK_METRICS_PORT is set.
   */
  runsWorker?: boolean;
  /**
   * A long-running command a person watches: at a terminal its log goes to BOOKSYNC_DATA_DIR/logs and only
   * warnings and errors to the screen (unless LOG_LEVEL, LOG_FORMAT or --verbose say otherwise).
   */
  logsToFileAtTerminal?: boolean;
  run(context: CommandContext): Promise<number | undefined>;
}

/** A failure to report as one line and a non-zero exit, without a stack trace. */
export class CommandError extends Error {
  override name = 'CommandError';
}
