import { spawn } from 'node:child_process';
import path from 'node:path';
import { typescriptEntry } from './typescript-entry.js';

// The booksync CLI run as a child process, as a person runs it: every test that runs a `booksync …` command
// goes through `runBooksync` (from the TypeScript source, or through bin/booksync.js as it is installed).

export const projectRoot = path.resolve(import.meta.dirname, '../..');
const bin = path.join(projectRoot, 'bin', 'booksync.js');

export interface CliRun {
  /** The exit code; -1 when the process ended by a signal. */
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The child's whole environment (nothing of this process's is added). */
  env: NodeJS.ProcessEnv;
  /** `source`: `src/cli/main.ts` with the project's loader (typescript-entry.ts); `bin`: `node bin/booksync.js` (the default). */
  entry?: 'source' | 'bin';
  /** In a process group of its own, so a timeout kills whatever it started too. */
  detached?: boolean;
  /** Kills the run (its group when detached) and rejects after this long. */
  timeoutMs?: number;
}

/** Runs `booksync <args>` to its end; resolves with its exit code and what it printed. */
export function runBooksync(args: string[], options: CliOptions): Promise<CliRun> {
  const entry =
    options.entry === 'source' ? typescriptEntry(path.join(projectRoot, 'src/cli/main.ts')) : [bin];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entry, ...args], {
      cwd: projectRoot,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: options.detached ?? false,
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            try {
              if (options.detached) process.kill(-(child.pid as number), 'SIGKILL');
              else child.kill('SIGKILL');
            } catch {
              // Gone already.
            }
            reject(new Error(`booksync ${args.join(' ')} timed out:\n${stdout}\n${stderr}`));
          }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/**
 * The CLI from its source with nothing of this machine's settings: PATH and HOME, quiet logs, a data folder
 * that does not exist, plus `env` (the Temporal address, LEDGER_URL, the command API…).
 */
export function booksyncCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runBooksync(args, {
    entry: 'source',
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      LOG_LEVEL: 'silent',
      BOOKSYNC_DATA_DIR: '/nonexistent-booksync-data',
      ...env,
    },
  });
}
