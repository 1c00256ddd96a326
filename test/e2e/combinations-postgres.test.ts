import { describeCombinations } from '../support/combinations.js';

// Issue 26's combination suite on the PostgreSQL ledger, LEDGER_URL (the scenario and its checks:
// test/support/combinations.ts).
describeCombinations('postgres');
