import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// booksync's custom search attributes: what people filter on in the Temporal Web UI
// (e.g. `SyncState = "IN_RETURN_WINDOW" AND ReturnWindowEndsAt > "2026-11-21T00:00:00Z"`).
// Given to booksync's own dev server as flags; on any other Temporal, booksync registers the missing ones
// itself (`booksync temporal setup`, and `booksync worker` and `booksync start` at start-up).
export const PaymentLinkId = defineSearchAttributeKey('PaymentLinkId', SearchAttributeType.KEYWORD);
export const CustomerId = defineSearchAttributeKey('CustomerId', SearchAttributeType.KEYWORD);
export const ServiceObjectId = defineSearchAttributeKey('ServiceObjectId', SearchAttributeType.KEYWORD);
export const PaymentMethodType = defineSearchAttributeKey('PaymentMethodType', SearchAttributeType.KEYWORD);
export const SyncState = defineSearchAttributeKey('SyncState', SearchAttributeType.KEYWORD);
export const ServiceStatus = defineSearchAttributeKey('ServiceStatus', SearchAttributeType.KEYWORD);
export const ReturnWindowEndsAt = defineSearchAttributeKey(
  'ReturnWindowEndsAt',
  SearchAttributeType.DATETIME,
);
export const AmountCents = defineSearchAttributeKey('AmountCents', SearchAttributeType.INT);
export const NeedsAttention = defineSearchAttributeKey('NeedsAttention', SearchAttributeType.BOOL);
export const LastError = defineSearchAttributeKey('LastError', SearchAttributeType.KEYWORD);

export const booksyncSearchAttributes = [
  PaymentLinkId,
  CustomerId,
  ServiceObjectId,
  PaymentMethodType,
  SyncState,
  ServiceStatus,
  ReturnWindowEndsAt,
  AmountCents,
  NeedsAttention,
  LastError,
];

/** `--search-attribute Name=Type` flags for `temporal server start-dev`. */
export function devServerSearchAttributeFlags(): string[] {
  const cliType: Record<string, string> = {
    KEYWORD: 'Keyword',
    DATETIME: 'Datetime',
    INT: 'Int',
    BOOL: 'Bool',
    TEXT: 'Text',
    DOUBLE: 'Double',
    KEYWORD_LIST: 'KeywordList',
  };
  return booksyncSearchAttributes.flatMap((key) => [
    '--search-attribute',
    `${key.name}=${cliType[key.type]}`,
  ]);
}
