// Which properties QuickBooks Online lets a query filter on (the WHERE clause), per entity, and with which
// operators. QBO answers a query on any other property with
//   400 ValidationFault, Error code 4001, Message "Invalid query",
//   Detail "QueryValidationError: property '<name>' is not queryable"
// (the Fault as QBO returned it for Vendor.PrimaryEmailAddr in ruby/quickbooks-ruby#403; the same message for
// Account.AcctNum in intuit/QuickBooks-V3-DotNET-SDK#163, where an Intuit engineer answered: "for vendor and
// Account, AcctNum is a valid property but it is not filterable. The property which are mentioned as
// filterable are only queryable").
//
// Sources, per entity (the README's table says which row rests on which):
// - Intuit's API reference marks filterable attributes per entity:
//   https://developer.intuit.com/app/developer/qbo/docs/api/accounting/all-entities/<entity>
//   and the query language (operators =, <, >, <=, >=, IN, LIKE with % only; AND only, no OR):
//   https://developer.intuit.com/app/developer/qbo/docs/learn/explore-the-quickbooks-online-api/data-queries
// - Intuit's Finance.xsd (read from ../shared/contracts/quickbooks-online/xsd), Transaction: DocNumber
//   "Filterable: QBO ... Filter support not provided for Payment", TxnDate "Filterable: ALL".
// - Deposit: only Id and TxnDate (and MetaData) filter (quickbooks-ruby#405, maintainer's answer), so
//   Deposit.DocNumber is left out here although the XSD's Transaction base marks it; the sandbox test checks.
// Kept conservative: a property is here only where a source says it filters, so the adapter cannot come to
// rely on one that real QBO refuses.

export type QueryOperator = '=' | '<' | '>' | '<=' | '>=' | 'IN' | 'LIKE';

const id: QueryOperator[] = ['=', 'IN'];
const name: QueryOperator[] = ['=', 'IN', 'LIKE'];
const range: QueryOperator[] = ['=', '<', '>', '<=', '>='];
const flag: QueryOperator[] = ['='];
const metaData = { 'MetaData.CreateTime': range, 'MetaData.LastUpdatedTime': range };
/** A customer's and a vendor's name fields filter alike. */
const partyNames = {
  DisplayName: name,
  GivenName: name,
  MiddleName: name,
  FamilyName: name,
  CompanyName: name,
};

export const filterableFields: Record<string, Record<string, QueryOperator[]>> = {
  Account: {
    Id: id,
    Name: name,
    SubAccount: flag,
    ParentRef: id,
    Description: name,
    Active: flag,
    Classification: id,
    FullyQualifiedName: name,
    AccountType: id,
    AccountSubType: id,
    CurrentBalance: range,
    CurrentBalanceWithSubAccounts: range,
    ...metaData,
  },
  Customer: {
    Id: id,
    ...partyNames,
    PrimaryEmailAddr: ['=', 'IN'],
    PrintOnCheckName: name,
    FullyQualifiedName: name,
    Active: flag,
    Balance: range,
    ...metaData,
  },
  // Not PrimaryEmailAddr nor AcctNum (quickbooks-ruby#403, QuickBooks-V3-DotNET-SDK#163).
  Vendor: {
    Id: id,
    ...partyNames,
    PrintOnCheckName: name,
    Active: flag,
    ...metaData,
  },
  Employee: {
    Id: id,
    DisplayName: name,
    GivenName: name,
    MiddleName: name,
    FamilyName: name,
    PrintOnCheckName: name,
    Active: flag,
    ...metaData,
  },
  Item: { Id: id, Name: name, Active: flag, Type: id, Sku: name, FullyQualifiedName: name, ...metaData },
  // Not PrivateNote (no source marks it; the reading of Intuit's Invoice page).
  Invoice: {
    Id: id,
    DocNumber: id,
    TxnDate: range,
    DueDate: range,
    CustomerRef: id,
    Balance: range,
    TotalAmt: range,
    ...metaData,
  },
  // Payment: DocNumber has no filter support (Finance.xsd); CustomerRef and TxnDate do.
  Payment: { Id: id, TxnDate: range, CustomerRef: id, TotalAmt: range, ...metaData },
  Deposit: { Id: id, TxnDate: range, ...metaData },
  JournalEntry: { Id: id, DocNumber: id, TxnDate: range, ...metaData },
  Purchase: { Id: id, DocNumber: id, TxnDate: range, PaymentType: id, TotalAmt: range, ...metaData },
  RefundReceipt: { Id: id, DocNumber: id, TxnDate: range, CustomerRef: id, TotalAmt: range, ...metaData },
  // SalesReceipt: DocNumber filters (Finance.xsd Transaction.DocNumber: not for Payment only), TxnDate (ALL).
  SalesReceipt: { Id: id, DocNumber: id, TxnDate: range, CustomerRef: id, TotalAmt: range, ...metaData },
  // CreditMemo: a SalesTransaction, DocNumber and TxnDate as any (Finance.xsd); Intuit's CreditMemo page.
  CreditMemo: { Id: id, DocNumber: id, TxnDate: range, CustomerRef: id, TotalAmt: range, ...metaData },
  Bill: {
    Id: id,
    DocNumber: id,
    TxnDate: range,
    DueDate: range,
    VendorRef: id,
    Balance: range,
    TotalAmt: range,
    ...metaData,
  },
  BillPayment: { Id: id, DocNumber: id, TxnDate: range, VendorRef: id, TotalAmt: range, ...metaData },
};

/** QBO's answer to a filter it does not allow; null when allowed. */
export function filterRefusal(entity: string, field: string, operator: QueryOperator): string | null {
  const allowed = filterableFields[entity]?.[field];
  if (!allowed) return `QueryValidationError: property '${field}' is not queryable`;
  if (!allowed.includes(operator))
    return `QueryValidationError: operator '${operator}' is not supported for property '${field}'`;
  return null;
}
