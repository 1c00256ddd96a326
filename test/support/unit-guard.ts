import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

// The unit tier's set-up: a unit test starts no process and opens no listening socket (test/support/test-tiers.ts
// reads the tier from the tests; this makes a file it misreads fail with the reason instead of quietly
// slowing the inner loop). Outgoing connections are not refused: a client pointed at nothing is a unit test's
// way of showing an error path.

function refuse(what: string): never {
  throw new Error(
    `a unit test ${what}: it belongs to the integration tier (name the helper in test/support/test-tiers.ts, or begin the file with '// test tier: integration')`,
  );
}

for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = () => refuse(`starts a process (${name})`);
}
syncBuiltinESMExports();
net.Server.prototype.listen = function listen(): never {
  return refuse('listens on a socket');
};
