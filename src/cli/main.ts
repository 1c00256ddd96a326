import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadEnvFile } from '../config/env-file.js';
import { loadSettings, SettingsError } from '../config/settings.js';
import { createLogger, createTerminalAndFileLogger } from '../logging/logger.js';
import { type Command, CommandError } from './command.js';

// Each command's module is imported only when that command runs: a worker does not load the emulator, the
// console or the ingress (their modules, Fastify and its plugins), nor a command line the worker's code. Every
// module is transformed by tsx and its source kept by V8, so what a process never imports is memory it keeps.
const commands: Record<string, () => Promise<Command>> = {
  start: () => import('./commands/start.js').then((m) => m.startCommand),
  worker: () => import('./commands/worker.js').then((m) => m.workerCommand),
  ingress: () => import('./commands/ingress.js').then((m) => m.ingressCommand),
  emulator: () => import('./commands/emulator.js').then((m) => m.emulatorCommand),
  ledger: () => import('./commands/ledger.js').then((m) => m.ledgerCommand),
  demo: () => import('./commands/demo.js').then((m) => m.demoCommand),
  reconcile: () => import('./commands/reconcile.js').then((m) => m.reconcileCommand),
  targets: () => import('./commands/targets.js').then((m) => m.targetsCommand),
  temporal: () => import('./commands/temporal.js').then((m) => m.temporalCommand),
  deposit: () => import('./commands/deposit.js').then((m) => m.depositCommand),
  link: () => import('./commands/link.js').then((m) => m.linkCommand),
  payout: () => import('./commands/payout.js').then((m) => m.payoutCommand),
  close: () => import('./commands/close.js').then((m) => m.closeCommand),
  books: () => import('./commands/books.js').then((m) => m.booksCommand),
  resync: () => import('./commands/resync.js').then((m) => m.resyncCommand),
  backfill: () => import('./commands/backfill.js').then((m) => m.backfillCommand),
  console: () => import('./commands/console.js').then((m) => m.consoleCommand),
};

/** package.json's version: the one place it is written. */
function packageVersion(): string {
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

async function help(): Promise<string> {
  const width = Math.max(...Object.keys(commands).map((name) => name.length)) + 2;
  const loaded = await Promise.all(
    Object.entries(commands).map(async ([name, load]) => [name, await load()] as const),
  );
  return [
    'booksync: mirrors a payment service into your books through Temporal workflows',
    '',
    'usage: booksync <command> [args]    (booksync <command> --help for details; booksync --version)',
    '',
    ...loaded.map(([name, command]) => `  ${name.padEnd(width)}${command.summary}`),
    '',
    'Configuration comes from the environment and BOOKSYNC_DATA_DIR/booksync.env, or the file BOOKSYNC_ENV_FILE names (see README, "Configuration").',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    console.log(`booksync ${packageVersion()}`);
    return 0;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(await help());
    return name ? 0 : 2;
  }
  const load = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!load) {
    console.error(`booksync: unknown command '${name}'\n\n${await help()}`);
    return 2;
  }
  const command = await load();
  if (args.includes('--help') || args.includes('-h')) {
    console.log(command.usage);
    return 0;
  }
  loadEnvFile();
  const settings = loadSettings();
  const verbose = args.includes('--verbose');
  const toFile =
    command.logsToFileAtTerminal &&
    process.stdout.isTTY &&
    !verbose &&
    process.env.LOG_LEVEL === undefined &&
    settings.LOG_FORMAT === undefined;
  const logFile = path.join(settings.BOOKSYNC_DATA_DIR, 'logs', 'booksync.log');
  const logger = toFile
    ? createTerminalAndFileLogger({ level: settings.LOG_LEVEL, file: logFile, name: 'booksync' })
    : createLogger({
        level: settings.LOG_LEVEL,
        ...(settings.LOG_FORMAT ? { format: settings.LOG_FORMAT } : {}),
        name: 'booksync',
      });
  if (toFile)
    console.log(
      `booksync: the log goes to ${logFile} (warnings and errors here too; --verbose shows it all)`,
    );
  // OpenTelemetry is loaded only by the commands that talk to Temporal, and the Temporal SDK's runtime (a
  // native library, the worker's: a client speaks gRPC from JavaScript) only by those that run a worker: the
  // others start in a fraction of the time.
  const tracingModule = command.usesTemporal ? await import('../telemetry/tracing.js') : null;
  if (command.runsWorker) {
    const { installTemporalRuntime } = await import('../runtime/temporal/sdk-runtime.js');
    installTemporalRuntime(
      logger,
      settings.TEMPORAL_SDK_METRICS_PORT === undefined
        ? undefined
        : { host: settings.METRICS_HOST, port: settings.TEMPORAL_SDK_METRICS_PORT },
    );
  }
  // OpenTelemetry (OTEL_*) for the commands that talk to Temporal: off unless an OTLP endpoint is set.
  const tracing = tracingModule ? await tracingModule.startTracing() : null;
  if (tracing) {
    // At debug: a command's stdout may be its JSON answer (`targets status --json`).
    logger.debug(
      { endpoint: process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_ENDPOINT },
      'tracing: spans exported by OTLP',
    );
  }
  const commandArgs = args.filter((arg) => arg !== '--verbose');
  try {
    return (
      (await command.run({ args: commandArgs, settings, logger, out: (line) => console.log(line) })) ?? 0
    );
  } finally {
    // The spans still buffered go before the process exits.
    await tracingModule
      ?.stopTracing()
      .catch((error: unknown) => logger.warn({ err: error }, 'tracing: could not export the last spans'));
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // One clear line, no stack, for what a person can fix: configuration and command errors.
    if (error instanceof SettingsError || error instanceof CommandError) {
      console.error(`booksync: ${error.message}`);
    } else {
      console.error(`booksync: ${error instanceof Error ? error.message : String(error)}`);
      if (process.env.LOG_LEVEL === 'debug') console.error(error);
    }
    process.exit(1);
  },
);
