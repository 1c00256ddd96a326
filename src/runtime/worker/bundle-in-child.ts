import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

// The workflow bundle is built by webpack in a process of its own. Built in the worker, webpack's working
// memory (100 to 150 MiB) stays in the worker's RSS for its whole life: glibc keeps the freed pages, V8 keeps
// its grown heap. A child that exits gives all of it back. The worker reads the bundle's code from the
// child's stdout. The child runs without the heap bounds a worker may have in NODE_OPTIONS (webpack needs
// more than a worker holding thousands of windows is given), and with plain CommonJS: no TypeScript loader,
// since the SDK's webpack reads the workflows' TypeScript itself.

/** What booksync asks of the SDK's bundler (paths only: they cross a process boundary). */
export interface BundleRequest {
  workflowsPath: string;
  failureConverterPath?: string;
  workflowInterceptorModules?: string[];
}

export type WorkflowBundler = (request: BundleRequest) => Promise<{ code: string }>;

const require = createRequire(import.meta.url);

const childSource = `
const sdk = require(process.argv[1]);
sdk
  .bundleWorkflowCode({ ...JSON.parse(process.argv[2]), logger: new sdk.DefaultLogger('WARN') })
  .then(({ code }) => process.stdout.write(code))
  .catch((error) => {
    process.stderr.write(String((error && error.stack) || error));
    process.exitCode = 1;
  });
`;

/** NODE_OPTIONS without V8's heap bounds: the rest (a loader, a CA bundle) still applies to the child. */
export function withoutHeapBounds(nodeOptions: string | undefined): string {
  return (nodeOptions ?? '')
    .split(/\s+/)
    .filter((option) => option !== '' && !/^--max-(old|semi)-space-size(=|$)/.test(option))
    .join(' ');
}

/** The SDK's bundleWorkflowCode, run in a child process. */
export const bundleInChild: WorkflowBundler = (request) =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-e', childSource, require.resolve('@temporalio/worker'), JSON.stringify(request)],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, NODE_OPTIONS: withoutHeapBounds(process.env.NODE_OPTIONS) },
      },
    );
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString()).slice(-4_000);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve({ code: Buffer.concat(out).toString('utf8') });
      else
        reject(
          new Error(
            `bundling the workflows failed (${signal ?? `exit code ${code}`}): ${err.trim() || 'no output'}`,
          ),
        );
    });
  });
