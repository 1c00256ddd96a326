import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// The fingerprint of a workflow type's code: the module src/flows/workflows.ts exports it from and every module
// that module imports as a value, transitively (what the bundler puts into the workflow bundle for that type;
// `import type` is erased under verbatimModuleSyntax and left out). Packages (@temporalio/workflow) are not
// followed: an SDK upgrade does not change a fingerprint. It is a plain content hash: a reformat or a
// comment counts as a change (cheap and never misses one; the price is a recording for a change that could
// not break replay).
//
// The same fingerprint is computed over the working tree and over any commit (read from git objects, one
// `git ls-tree` and one batched `git cat-file` a commit), so the replay rule can find the code a type had
// before its last change without checking anything out.

/**
 * Where workflow code lives: nothing outside these folders can be in a workflow bundle (npm run lint). Each
 * flow has a folder of its own under src/flows; earlier commits kept every workflow in workflows/, which is
 * read too, to find a type's code before the move.
 */
export const workflowCodeDirs = ['src/flows', 'src/workflow-safe', 'workflows'] as const;
/** The bundle's entry, which exports every workflow type: today's, then the one earlier commits had. */
const entryModules = ['src/flows/workflows.ts', 'workflows/index.ts'] as const;

/** A tree of workflow code: repository-relative paths (posix) to git blob ids, and blob contents. */
export interface CodeTree {
  /** Git's blob id of the file, or undefined when the tree has no such file. */
  blob(file: string): string | undefined;
  content(file: string): string;
}

/** Git's blob id of some content: the same id `git hash-object` gives, without a process. */
export function blobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

function filesUnder(root: string, dir: string): string[] {
  const full = path.join(root, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    return entry.isDirectory() ? filesUnder(root, rel) : [rel];
  });
}

/** The working tree's workflow code (uncommitted changes included). */
export function workingTree(root: string): CodeTree {
  const blobs = new Map<string, string>();
  const contents = new Map<string, string>();
  for (const file of workflowCodeDirs.flatMap((dir) => filesUnder(root, dir))) {
    const bytes = readFileSync(path.join(root, file));
    blobs.set(file, blobId(bytes));
    contents.set(file, bytes.toString('utf8'));
  }
  return {
    blob: (file) => blobs.get(file),
    content: (file) => contents.get(file) ?? '',
  };
}

/** Reads workflow code at commits of the repository at `root`, sharing blob contents between commits. */
export class GitHistory {
  private readonly contents = new Map<string, string>();
  private readonly trees = new Map<string, CodeTree>();

  readonly root: string;
  constructor(root: string) {
    this.root = root;
  }

  git(...args: string[]): string {
    return execFileSync('git', args, { cwd: this.root, encoding: 'utf8', maxBuffer: 64 << 20 });
  }

  /** The workflow code at a commit (or any revision git names). */
  at(revision: string): CodeTree {
    const cached = this.trees.get(revision);
    if (cached) return cached;
    const blobs = new Map<string, string>();
    for (const line of this.git('ls-tree', '-r', '-z', revision, '--', ...workflowCodeDirs).split('\0')) {
      const match = /^\d+ blob ([0-9a-f]+)\t(.+)$/.exec(line);
      if (match) blobs.set(match[2]!, match[1]!);
    }
    this.load([...blobs.values()].filter((id) => !this.contents.has(id)));
    const tree: CodeTree = {
      blob: (file) => blobs.get(file),
      content: (file) => this.contents.get(blobs.get(file) ?? '') ?? '',
    };
    this.trees.set(revision, tree);
    return tree;
  }

  /** Reads blobs with one `git cat-file --batch`. */
  private load(ids: string[]): void {
    if (ids.length === 0) return;
    const out = spawnSync('git', ['cat-file', '--batch'], {
      cwd: this.root,
      input: `${ids.join('\n')}\n`,
      maxBuffer: 256 << 20,
    });
    if (out.status !== 0) throw new Error(`git cat-file failed: ${out.stderr.toString()}`);
    const buffer = out.stdout;
    let offset = 0;
    while (offset < buffer.length) {
      const headerEnd = buffer.indexOf(0x0a, offset);
      const [id, , size] = buffer.subarray(offset, headerEnd).toString().split(' ');
      const start = headerEnd + 1;
      const end = start + Number(size);
      this.contents.set(id!, buffer.subarray(start, end).toString('utf8'));
      offset = end + 1;
    }
  }
}

// Static import and re-export declarations, across lines; `import type` / `export type` are erased.
const importPattern = /(?:^|[;\n])\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/g;

/** The repository paths a module imports as values (relative specifiers only; `.js` names the `.ts` source). */
export function valueImports(tree: CodeTree, file: string): string[] {
  const imports: string[] = [];
  for (const match of tree.content(file).matchAll(importPattern)) {
    const [, typeOnly, specifier] = match;
    if (typeOnly || !specifier?.startsWith('.')) continue;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
    const candidates = [target.replace(/\.js$/, '.ts'), target, `${target}.ts`, `${target}/index.ts`];
    const found = candidates.find((candidate) => tree.blob(candidate) !== undefined);
    // An import outside workflow code (a type-only use spelt as a value import) cannot be followed from the
    // tree; the lint rule refuses value imports from there, so it is recorded by name and not followed.
    imports.push(found ?? target);
  }
  return imports;
}

/** The workflow types the bundle's entry exports, each with the module it comes from. */
export function workflowModules(tree: CodeTree): Map<string, string> {
  const modules = new Map<string, string>();
  const entryModule = entryModules.find((entry) => tree.blob(entry) !== undefined);
  if (entryModule === undefined) return modules;
  const reexport = /export\s*\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g;
  for (const [, names, specifier] of tree.content(entryModule).matchAll(reexport)) {
    const file = path.posix.join(path.posix.dirname(entryModule), specifier!.replace(/\.js$/, '.ts'));
    for (const name of names!.split(',')) {
      const exported = name
        .trim()
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (exported && !exported.startsWith('type ')) modules.set(exported, file);
    }
  }
  return modules;
}

/** The module and everything it imports as a value, transitively: sorted repository paths. */
export function moduleClosure(tree: CodeTree, module: string): string[] {
  const seen = new Set<string>();
  const queue = [module];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (tree.blob(file) !== undefined) queue.push(...valueImports(tree, file));
  }
  return [...seen].sort();
}

/** A type's fingerprint in a tree (16 hex digits), or null when the tree has no such workflow type. */
export function typeFingerprint(tree: CodeTree, type: string): string | null {
  const module = workflowModules(tree).get(type);
  if (!module) return null;
  const hash = createHash('sha256');
  for (const file of moduleClosure(tree, module)) hash.update(`${file}\0${tree.blob(file) ?? 'missing'}\n`);
  return hash.digest('hex').slice(0, 16);
}

/** Every workflow type's fingerprint in a tree. */
export function fingerprints(tree: CodeTree): Map<string, string> {
  const result = new Map<string, string>();
  for (const type of workflowModules(tree).keys()) result.set(type, typeFingerprint(tree, type)!);
  return result;
}
