import { afterAll } from 'vitest';
import { EmbeddedLedger } from '../../src/ledger/embedded-ledger.js';
import { LedgerMirrorTarget } from '../../src/targets/ledger-mirror-target.js';
import { describeTargetContract } from './target-contract.js';

// The port's reference implementation: a second embedded ledger.
const mirror = EmbeddedLedger.open();
afterAll(() => mirror.close());

describeTargetContract('ledger mirror', () => ({
  target: new LedgerMirrorTarget(mirror),
  fresh: async () => new LedgerMirrorTarget(mirror),
  countByKey: async (key) => ((await mirror.get(key)) ? 1 : 0),
}));
