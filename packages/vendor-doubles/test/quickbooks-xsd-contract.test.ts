import { describe, expect, it } from 'vitest';
import { quickBooksContract } from '../src/quickbooks/xsd-contract.js';

// The checker holds the QBO double and the adapter to Intuit's XSDs; it must catch what drifts.

const contract = quickBooksContract();

const payment = {
  CustomerRef: { value: '58', name: 'Amy Lane' },
  TotalAmt: 10.5,
  TxnDate: '2026-11-03',
  DepositToAccountRef: { value: '4' },
  Line: [{ Amount: 10.5, LinkedTxn: [{ TxnId: '130', TxnType: 'Invoice' }] }],
};

describe('QBO XSD contract checker', () => {
  it('accepts real-shaped requests and responses', () => {
    expect(contract.checkCreate('Payment', payment)).toEqual([]);
    const response = {
      Payment: {
        ...payment,
        Id: '201',
        SyncToken: '0',
        domain: 'QBO',
        sparse: false,
        MetaData: { CreateTime: '2026-11-03T10:00:00-08:00', LastUpdatedTime: '2026-11-03T10:00:00-08:00' },
        UnappliedAmt: 0,
      },
      time: '2026-11-03T10:00:01.123-08:00',
    };
    expect(contract.check(response, 'IntuitResponse')).toEqual([]);
    const journal = {
      TxnDate: '2026-11-03',
      Line: [
        {
          Amount: 1.25,
          DetailType: 'JournalEntryLineDetail',
          JournalEntryLineDetail: { PostingType: 'Debit', AccountRef: { value: '12' } },
        },
      ],
    };
    expect(contract.checkCreate('JournalEntry', journal)).toEqual([]);
    const fault = {
      Fault: {
        Error: [
          {
            Message: 'Stale Object Error',
            Detail: 'You and x were working on this at the same time.',
            code: '5010',
          },
        ],
        type: 'ValidationFault',
      },
      time: '2026-11-03T10:00:01.123-08:00',
    };
    expect(contract.check(fault, 'IntuitResponse')).toEqual([]);
    expect(
      contract.check(
        { QueryResponse: { Invoice: [{ Id: '1', DocNumber: 'A-1' }], startPosition: 1, maxResults: 1 } },
        'IntuitResponse',
      ),
    ).toEqual([]);
  });

  it('rejects a wrong field name', () => {
    expect(contract.checkCreate('Payment', { ...payment, TotalAmount: 10.5 })).toEqual([
      '$.Payment.TotalAmount: no element or attribute TotalAmount in Payment',
    ]);
    expect(
      contract.checkCreate('Payment', { ...payment, Line: [{ Amount: 1, LinkedTxn: [{ TxnID: '1' }] }] }),
    ).toEqual(['$.Payment.Line[0].LinkedTxn[0].TxnID: no element or attribute TxnID in LinkedTxn']);
  });

  it('rejects a wrong type', () => {
    expect(contract.checkCreate('Payment', { ...payment, TotalAmt: '10.50' })).toEqual([
      '$.Payment.TotalAmt: expected a number (xs:decimal), got "10.50"',
    ]);
    expect(contract.checkCreate('Payment', { ...payment, TxnDate: '03/11/2026' })[0]).toMatch(
      /TxnDate: expected a date/,
    );
    expect(contract.checkCreate('Payment', { ...payment, CustomerRef: '58' })[0]).toMatch(
      /CustomerRef: expected an object \(ReferenceType\)/,
    );
  });

  it('rejects a missing required element, by the XSD and on create', () => {
    const line = {
      Amount: 1,
      DetailType: 'PaymentLineDetail',
      PaymentLineDetail: { ServiceDate: '2026-11-03' },
    };
    expect(contract.check({ Line: [line] }, 'SalesReceipt')).toEqual([
      '$.Line[0].PaymentLineDetail.ItemRef: required (minOccurs 1)',
    ]);
    const { CustomerRef: _, ...noCustomer } = payment;
    expect(contract.checkCreate('Payment', noCustomer)).toEqual([
      '$.Payment.CustomerRef: required on create',
    ]);
    expect(contract.checkCreate('Payment', { ...payment, Id: '1' })).toEqual([
      '$.Payment.Id: assigned by QuickBooks, not allowed on create',
    ]);
  });

  it('rejects enumeration values and cardinality QBO does not have', () => {
    const bad = {
      Line: [
        {
          Amount: 1,
          DetailType: 'JournalEntryLineDetail',
          JournalEntryLineDetail: { PostingType: 'Dr', AccountRef: { value: '1' } },
        },
      ],
    };
    expect(contract.checkCreate('JournalEntry', bad)[0]).toMatch(
      /PostingType: "Dr" is not one of PostingTypeEnum/,
    );
    expect(contract.checkCreate('Payment', { ...payment, Line: payment.Line[0] })).toEqual([
      '$.Payment.Line: maxOccurs unbounded, expected an array',
    ]);
    expect(contract.checkCreate('Payment', { ...payment, CustomerRef: [{ value: '1' }] })).toEqual([
      '$.Payment.CustomerRef: maxOccurs 1, got an array',
    ]);
  });
});
