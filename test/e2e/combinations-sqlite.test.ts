import { describeCombinations } from '../support/combinations.js';

// The combination suite on the SQLite ledger (the scenario and its checks: test/support/combinations.ts).
describeCombinations('sqlite');
