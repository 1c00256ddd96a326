import type { OrganizationRow } from '../auth/organizations.js';
import type { Reader } from '../store/store.js';
import type { CustomerRow, PaymentLinkRow } from './rows.js';

/** Decision “Precedence” precedence: link, then customer, then organization. */
export function effectiveFeePassthroughPercent(
  org: OrganizationRow,
  customer: CustomerRow | undefined,
  link: PaymentLinkRow | undefined,
): number {
  return link?.fee_passthrough_percent ?? customer?.fee_passthrough_percent ?? org.fee_passthrough_percent;
}

export function effectiveAchEnabled(
  org: OrganizationRow,
  customer: CustomerRow | undefined,
  link: PaymentLinkRow | undefined,
): boolean {
  const value = link?.ach_enabled ?? customer?.ach_enabled ?? org.ach_enabled;
  return value === 1;
}

/** Cards have no customer-level switch (2.9). */
export function effectiveCreditCardEnabled(org: OrganizationRow, link: PaymentLinkRow | undefined): boolean {
  return (link?.credit_card_enabled ?? org.credit_card_enabled) === 1;
}

export function linkCustomer(reader: Reader, link: PaymentLinkRow): CustomerRow | undefined {
  if (link.customer_id === null) return undefined;
  return reader.db.prepare('SELECT * FROM customers WHERE id = ?').get(link.customer_id) as
    | CustomerRow
    | undefined;
}
