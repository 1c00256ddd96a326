import { describeCombinations } from '../support/combinations.js';

// The combination suite on the PostgreSQL ledger, LEDGER_URL (the scenario and its checks:
// test/support/combinations.ts).
describeCombinations('postgres');
