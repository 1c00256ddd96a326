import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountRoles } from '../../../src/targets/account-mapping.js';
import { pushIndex } from '../../support/push-index.js';
import { startTryton, type TrytonServer, trytonTarget } from '../../support/tryton.js';
import { depositedBalances, depositSlipScenario } from '../deposit-slip-documents.js';
import { withZeros } from '../figures-documents.js';

// A deposit slip pushed to a real Tryton: the checks received outside the service are payments of the
// links' invoices into Checks To Deposit, the slip one move Dr Operating Bank / Cr Checks To Deposit for the
// total; Tryton's own figures then have Checks To Deposit back at 0.

let tryton: TrytonServer;
const connect = () => trytonTarget(tryton);

beforeAll(async () => {
  tryton = await startTryton();
}, 300_000);
afterAll(async () => {
  await tryton?.close();
});

describe('Tryton: a deposit slip', { timeout: 300_000 }, () => {
  it('is one move from Checks To Deposit to Operating Bank; Checks To Deposit back to 0', async () => {
    const scenario = await depositSlipScenario();
    const { pushed, context } = pushIndex({ mayExist: true });
    for (const doc of scenario.documents) pushed.set(doc.key, await connect().push(doc, context));
    expect(pushed.get(`deposit-slip:${scenario.reference}`)?.remoteIds).toHaveLength(1);
    const figures = await connect().figuresAsOf('2026-03-31');
    expect(figures.balances).toEqual(withZeros(depositedBalances, accountRoles));
    expect(figures.openInvoices).toEqual({});
  });
});
