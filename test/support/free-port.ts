import { createServer } from 'node:net';

// Ports below the kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768-60999 by default): a port
// the OS hands out for listen(0) is in that range, and outgoing connections take their local ports from it
// too, so a stack restarted minutes later on the same port found it taken by some test's client socket
// ("EADDRINUSE 127.0.0.1:37813" in CI). Below 32768 only another listener can hold it.
//
// Each vitest worker draws from a slice of that range of its own (VITEST_POOL_ID, unique among the workers that
// run at once): two files running side by side picked the same port in CI (the Tryton and QuickBooks books
// scenarios, both a Temporal UI on 24885), since a port checked free here is bound only later by the stack's
// own process; the second `booksync start` then found it taken, and before it refused taken ports it talked
// to the other file's Temporal.
const RANGE_FIRST = 20_000;
const RANGE_LAST = 32_767;
const SLICES = 8;
const pool = Number(process.env.VITEST_POOL_ID ?? 0);
const span = Math.floor((RANGE_LAST - RANGE_FIRST + 1) / SLICES);
const FIRST = pool > 0 ? RANGE_FIRST + ((pool - 1) % SLICES) * span : RANGE_FIRST;
const LAST = pool > 0 ? FIRST + span - 1 : RANGE_LAST;
/** Handed out in this process already: two stacks of one test file never get the same port. */
const given = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A free TCP port on loopback, for a listener that must know its address before it starts. */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = FIRST + Math.floor(Math.random() * (LAST - FIRST + 1));
    if (given.has(port)) continue;
    if (await bindable(port)) {
      given.add(port);
      return port;
    }
  }
  throw new Error(`no free port between ${FIRST} and ${LAST} after 200 tries`);
}
