import { accessSync, constants } from 'node:fs';
import path from 'node:path';

// Finding a program on this machine, for the Temporal binaries' sources (cli-source.ts, binaries.ts).

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` on PATH (with Windows' extensions there), or undefined. */
export function which(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const exts = process.platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    for (const ext of exts) {
      const candidate = dir && path.join(dir, name + ext);
      if (candidate && isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}
