// Prints the Temporal CLI's path on stdout, finding or obtaining it as src/temporal/cli-source.ts decides
// (explicit path, PATH, cache, the release download, a Go build); progress and errors go to stderr.
// Run by scripts/obtain-temporal.sh (and so by `npm start`'s prestart and .ci/run).
import { obtainTemporalCli } from '../src/temporal/cli-source.js';

try {
  process.stdout.write(`${await obtainTemporalCli()}\n`);
} catch (error) {
  process.stderr.write(`[obtain-temporal] error: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
