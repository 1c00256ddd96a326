import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { profileDir } from './child.js';

// npx tsx bench/profile-summary.ts [file.cpuprofile ...]  (default: the main-thread profile, i.e. the largest
// file, of every folder in bench/results/profiles)
// Prints, per V8 CPU profile (node --cpu-prof, written by `npm run bench -- --profile`), the functions with
// the most self time and the self time per package / source folder.

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
}

function owner(url: string): string {
  if (url === '') return '(native / VM)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  if (url.startsWith('node:')) return 'node core';
  const local = /\/work\/main\/(.+)$/.exec(url.replace('file://', ''));
  if (local) return local[1]!.split('/').slice(0, 2).join('/');
  return url;
}

export function summarizeProfile(file: string, top = 15): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const totalMs = (profile.endTime - profile.startTime) / 1000;
  const msPerSample = totalMs / Math.max(1, profile.samples.length);
  const byFrame = new Map<string, number>();
  const byOwner = new Map<string, number>();
  let busy = 0;
  for (const node of profile.nodes) {
    const ms = (node.hitCount ?? 0) * msPerSample;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)' || functionName === '(garbage collector)') {
      byOwner.set(functionName, (byOwner.get(functionName) ?? 0) + ms);
      if (functionName !== '(idle)') busy += ms;
      continue;
    }
    busy += ms;
    const frame = `${functionName || '(anonymous)'} ${url.replace(/^.*\/work\/main\//, '').replace(/^file:\/\//, '')}:${lineNumber + 1}`;
    byFrame.set(frame, (byFrame.get(frame) ?? 0) + ms);
    byOwner.set(owner(url), (byOwner.get(owner(url)) ?? 0) + ms);
  }
  const pct = (ms: number) => `${((ms / Math.max(busy, 1)) * 100).toFixed(1).padStart(5)}%`;
  const list = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => `  ${pct(ms)} ${ms.toFixed(0).padStart(7)} ms  ${name}`);
  return [
    `${path.relative(profileDir, file)}: ${totalMs.toFixed(0)} ms profiled, ${busy.toFixed(0)} ms busy (not idle); % of busy`,
    ' top self time by function:',
    ...list(byFrame),
    ' self time by package / folder:',
    ...list(byOwner),
  ].join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  const files = process.argv.slice(2);
  const chosen =
    files.length > 0
      ? files
      : readdirSync(profileDir).flatMap((dir) => {
          const full = path.join(profileDir, dir);
          const profiles = readdirSync(full)
            .filter((f) => f.endsWith('.cpuprofile'))
            .map((f) => path.join(full, f))
            .sort((a, b) => statSync(b).size - statSync(a).size);
          return profiles.slice(0, 1);
        });
  for (const file of chosen) console.log(`${summarizeProfile(file)}\n`);
}
