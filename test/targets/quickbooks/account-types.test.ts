import { QuickBooksDouble } from '@booksync/vendor-doubles/quickbooks/double';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/logging/logger.js';
import { verifyOrWait } from '../../../src/runtime/targets/accounting-targets.js';
import {
  type AccountMapping,
  accountRoles,
  defaultAccountCodes,
} from '../../../src/targets/account-mapping.js';
import { TargetConfigurationError } from '../../../src/targets/errors.js';
import {
  AccountTypeError,
  accountTypeMismatch,
  roleAccountTypes,
} from '../../../src/targets/quickbooks/account-types.js';
import { OAuthTokenStore, QuickBooksTarget, TokenCipher } from '../../../src/targets/quickbooks/index.js';
import { quickBooksBooksyncChart } from '../../support/booksync-charts.js';
import { doubleForFile } from '../../support/double-for-file.js';
import { SealedTokenInMemory } from '../../support/sealed-token-in-memory.js';

// verify() holds each role's account to the AccountType (and AccountSubType where it matters) its documents
// need (src/targets/quickbooks/account-types.ts): a role on an account of another type stops start-up with
// the role, the account, its type and the type required, before QBO refuses the role's documents one by one.

const double = doubleForFile(new QuickBooksDouble());
const cipher = new TokenCipher('test-secret-for-quickbooks-account-types');

/** The adapter for a new company in the double, its roles mapped as given. */
function target(mapping: Partial<AccountMapping> = {}) {
  // booksync's accounts already in place: this test is about verify()'s type checks, not set-up.
  const realmId = double.createRealm(undefined, { chart: quickBooksBooksyncChart });
  return new QuickBooksTarget({
    baseUrl: double.url,
    realmId,
    tokenStore: new OAuthTokenStore({
      tokenUrl: `${double.url}/oauth2/v1/tokens/bearer`,
      clientId: double.clientId,
      clientSecret: double.clientSecret,
      storage: new SealedTokenInMemory(cipher.seal(double.connect(realmId))),
      cipher,
    }),
    accounts: { ...defaultAccountCodes, ...mapping },
    matching: 'create',
  });
}

async function refusal(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: Error) => error,
  );
}

describe('QuickBooks Online: the type of each role’s account', () => {
  it('refuses a role mapped to an account of another type, naming the role, the account, its type and the type required', async () => {
    // Processor Clearing on the Sales account (4000, Income): payments would be deposited into income.
    const error = await refusal(target({ ProcessorClearing: defaultAccountCodes.Revenue }).verify());
    expect(error).toBeInstanceOf(AccountTypeError);
    expect(error).toBeInstanceOf(TargetConfigurationError);
    expect(error.message).toMatch(
      /ProcessorClearing: QuickBooks account Sales \(number 4000, id \d+\) is Income; ProcessorClearing requires Other Current Asset \(subtype UndepositedFunds\)/,
    );
    expect((error as AccountTypeError).mismatches).toEqual([
      {
        role: 'ProcessorClearing',
        account: expect.objectContaining({ number: '4000', name: 'Sales', type: 'Income', subType: null }),
        required: 'Other Current Asset (subtype UndepositedFunds)',
      },
    ]);
    // Fatal at start-up, unlike a company that cannot be reached.
    await expect(verifyOrWait(target({ ProcessorClearing: '4000' }), silentLogger)).rejects.toBeInstanceOf(
      AccountTypeError,
    );
  });

  it('holds the subtype where it matters, and several roles in one refusal', async () => {
    const error = await refusal(
      target({
        // Other Current Asset, not Undeposited Funds.
        ProcessorClearing: defaultAccountCodes.PayoutsInTransit,
        // A bill payment by check pays from a Bank account; Accounts Payable is not one.
        OutgoingPaymentsClearing: defaultAccountCodes.AccountsPayable,
      }).verify(),
    );
    expect((error as AccountTypeError).mismatches.map((m) => [m.role, m.account.type, m.required])).toEqual([
      ['ProcessorClearing', 'Other Current Asset', 'Other Current Asset (subtype UndepositedFunds)'],
      ['OutgoingPaymentsClearing', 'Accounts Payable', 'Bank'],
    ]);
  });

  it('accepts booksync’s chart, and every role takes the first of its types with its subtype', async () => {
    await expect(target().verify()).resolves.toBeUndefined();
    for (const role of accountRoles) {
      const { types, subType, newSubType } = roleAccountTypes[role];
      const created = { Id: '1', AccountType: types[0], AccountSubType: subType ?? newSubType };
      expect([role, accountTypeMismatch(role, created)]).toEqual([role, null]);
    }
  });
});
