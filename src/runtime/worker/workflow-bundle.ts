import { createHash } from 'node:crypto';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../logging/logger.js';
import { bundleInChild, type WorkflowBundler } from './bundle-in-child.js';

// The workflow bundle (webpack over src/flows/workflows.ts, seconds of CPU and a few hundred MiB at peak) is
// built once per change of the sources or of the Temporal SDK, in a child process (bundle-in-child.ts: its
// memory never stays in the worker), and kept as a file; a worker start only reads it. The same cache serves `booksync worker`, `booksync start` and the tests (test/.artifacts).

const root = fileURLToPath(new URL('../../..', import.meta.url));
const require = createRequire(import.meta.url);

/** booksync's workflows (not the emulator's delivery workflow, which has its own worker). */
export const booksyncWorkflowsPath = path.join(root, 'src', 'flows', 'workflows.ts');

/**
 * What a bundle can depend on: the workflows, what they import from src/ and the workspace packages (values such as
 * retry policies and workflow ids). Hashing all of them is cheap (milliseconds) and never misses an import.
 */
const sourceDirs = ['src', 'packages'].map((dir) => path.join(root, dir));

export interface CachedWorkflowBundleOptions {
  workflowsPath?: string;
  /**
   * Where bundles are kept, first writable one wins. Default: node_modules/.cache/booksync, then
   * `<dataDir>/cache` (a container's node_modules is read-only to its user).
   */
  cacheDirs?: string[];
  /** BOOKSYNC_DATA_DIR: the fallback cache directory's parent. */
  dataDir?: string;
  logger?: Logger;
  /** For tests: the bundler (default: the SDK's bundleWorkflowCode in a child process, bundle-in-child.ts). */
  bundle?: WorkflowBundler;
  /** A failure converter module the bundle loads (encoded failures, with PAYLOAD_KEYS): its own bundle. */
  failureConverterPath?: string;
  /**
   * Workflow interceptor modules bundled in (OpenTelemetry's, with tracing on): its own bundle, so the bundle
   * of a worker without tracing stays as it is.
   */
  workflowInterceptorModules?: string[];
}

export interface CachedWorkflowBundle {
  codePath: string;
  /** True when this call ran the bundler; false when it found the file. */
  built: boolean;
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|js|json)$/.test(entry.name) ? [full] : [];
  });
}

function sdkVersion(): string {
  return ['@temporalio/worker', '@temporalio/workflow']
    .map((name) => {
      try {
        return `${name}@${JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')).version}`;
      } catch {
        return `${name}@unknown`;
      }
    })
    .join(',');
}

/** The cache key: the SDK's versions, the entry point and every source file a bundle may include. */
export function workflowBundleKey(workflowsPath: string = booksyncWorkflowsPath): string {
  const hash = createHash('sha256');
  hash.update(sdkVersion()).update('\0').update(path.relative(root, workflowsPath)).update('\0');
  const files = sourceDirs.flatMap(sourceFiles).sort();
  for (const file of files) hash.update(path.relative(root, file)).update('\0').update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

function writableDir(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

export function defaultBundleCacheDirs(dataDir?: string): string[] {
  const dirs = [path.join(root, 'node_modules', '.cache', 'booksync')];
  if (dataDir) dirs.push(path.join(dataDir, 'cache'));
  return dirs;
}

const staleAfterMs = 24 * 3600_000;

/** `workflow-bundle-<key>.js` for booksync's workflows, `workflow-bundle-<entry>-<key>.js` for another entry. */
function bundlePrefix(workflowsPath: string): string {
  return `workflow-bundle-${workflowsPath === booksyncWorkflowsPath ? '' : `${path.basename(workflowsPath, '.ts')}-`}`;
}

/**
 * Bundles of the same entry built from older sources, unused for a day, go (a worker of the previous version
 * may still be starting).
 */
function pruneStale(dir: string, prefix: string, keep: string): void {
  const sameEntry = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[0-9a-f]{16}\\.js$`);
  for (const name of readdirSync(dir)) {
    if (!sameEntry.test(name) || path.join(dir, name) === keep) continue;
    const file = path.join(dir, name);
    try {
      if (Date.now() - statSync(file).mtimeMs > staleAfterMs) unlinkSync(file);
    } catch {
      // Another process pruned it first.
    }
  }
}

const inlineSourceMap = '//# sourceMappingURL=data:application/json;charset=utf-8;base64,';

/**
 * The bundle with its inline source map kept but the map's `sourcesContent` (a copy of every bundled source
 * file) dropped: two thirds of the file. The worker parses the map on its main thread and again in the
 * workflow thread (a SourceMapConsumer, for workflow stack traces), and holds both for its life; stack traces
 * need only the mappings and file names, which stay. A bundle whose map is not in that form is kept as is.
 */
export function withoutSourcesContent(code: string): string {
  const at = code.lastIndexOf(inlineSourceMap);
  if (at < 0) return code;
  try {
    const map = JSON.parse(
      Buffer.from(code.slice(at + inlineSourceMap.length).trim(), 'base64').toString('utf8'),
    );
    if (!Array.isArray(map.sourcesContent)) return code;
    delete map.sourcesContent;
    return `${code.slice(0, at)}${inlineSourceMap}${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
  } catch {
    return code;
  }
}

/**
 * The workflow bundle for `workflowsPath`, from the cache when its key matches, else built once and
 * written atomically (several workers starting together may each build; the last rename wins, all equal).
 */
export async function cachedWorkflowBundle(
  options: CachedWorkflowBundleOptions = {},
): Promise<CachedWorkflowBundle> {
  const workflowsPath = options.workflowsPath ?? booksyncWorkflowsPath;
  const key = workflowBundleKey(workflowsPath);
  const interceptors = options.workflowInterceptorModules ?? [];
  const prefix = `${bundlePrefix(workflowsPath)}${options.failureConverterPath ? 'encoded-failures-' : ''}${interceptors.length > 0 ? 'traced-' : ''}`;
  const name = `${prefix}${key}.js`;
  const dirs = options.cacheDirs ?? defaultBundleCacheDirs(options.dataDir);
  for (const dir of dirs) {
    const codePath = path.join(dir, name);
    if (existsSync(codePath)) return { codePath, built: false };
  }
  const dir = dirs.find(writableDir);
  if (!dir) throw new Error(`no writable directory for the workflow bundle among ${dirs.join(', ')}`);
  const codePath = path.join(dir, name);
  const started = Date.now();
  options.logger?.info(
    { workflowsPath, codePath },
    'bundling the workflows (once per change of the sources)',
  );
  const { code } = await (options.bundle ?? bundleInChild)({
    workflowsPath,
    ...(options.failureConverterPath ? { failureConverterPath: options.failureConverterPath } : {}),
    ...(interceptors.length > 0 ? { workflowInterceptorModules: interceptors } : {}),
  });
  const tmp = `${codePath}.${process.pid}.tmp`;
  writeFileSync(tmp, withoutSourcesContent(code), { mode: 0o600 });
  renameSync(tmp, codePath);
  options.logger?.info({ codePath, ms: Date.now() - started }, 'workflow bundle cached');
  try {
    pruneStale(dir, prefix, codePath);
  } catch {
    // Pruning is housekeeping only.
  }
  return { codePath, built: true };
}
