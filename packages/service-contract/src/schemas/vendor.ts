import { z } from 'zod';
import { id, isoDateTime, openEnum } from './primitives.js';

// Spec 2.14, 4.10, 4.11, decision “Vendors”. Account types are closed, delivery method types open (decision “Unknown enum values from the real service”).
export const ACCOUNT_TYPES = ['CHECKING', 'SAVINGS'] as const;
export const AccountType = z.enum(ACCOUNT_TYPES);
export type AccountType = z.infer<typeof AccountType>;

export const DELIVERY_METHOD_TYPES = ['ACH', 'CHECK', 'INTERNATIONAL_WIRE'] as const;
export const DeliveryMethodType = openEnum(DELIVERY_METHOD_TYPES);
export type DeliveryMethodType = z.infer<typeof DeliveryMethodType>;

export const VendorAchDetails = z.object({
  routingNumber: z.string(),
  accountNumberLastFour: z.string(),
  accountType: AccountType,
});
export type VendorAchDetails = z.infer<typeof VendorAchDetails>;

export const CheckAddress = z.object({
  name: z.string(),
  street: z.string(),
  city: z.string(),
  state: z.string(),
  zip: z.string(),
});
export type CheckAddress = z.infer<typeof CheckAddress>;

export const WireDetails = z.object({
  bankName: z.string(),
  swiftCode: z.string(),
  accountNumberLastFour: z.string(),
  countryCode: z.string(),
});
export type WireDetails = z.infer<typeof WireDetails>;

export const VendorDeliveryMethod = z.object({
  id,
  type: DeliveryMethodType,
  achDetails: VendorAchDetails.nullable(),
  checkAddress: CheckAddress.nullable(),
  wireDetails: WireDetails.nullable(),
  createdAt: isoDateTime,
});
export type VendorDeliveryMethod = z.infer<typeof VendorDeliveryMethod>;

export const Vendor = z.object({
  id,
  name: z.string(),
  email: z.string().nullable(),
  vendorDeliveryMethods: z.array(VendorDeliveryMethod),
  createdAt: isoDateTime,
});
export type Vendor = z.infer<typeof Vendor>;

export const CreateVendorRequest = z.object({
  name: z.string().min(1),
  email: z.email().optional(),
});
export type CreateVendorRequest = z.infer<typeof CreateVendorRequest>;

/** 4.10 body (both paths). Routing numbers are 9 digits (ABA); account numbers 4-17 digits (decision “Request bodies the spec leaves open”). */
export const UpdateVendorAchMethodRequest = z.object({
  routingNumber: z.string().regex(/^\d{9}$/),
  accountNumber: z.string().regex(/^\d{4,17}$/),
  accountType: AccountType,
});
export type UpdateVendorAchMethodRequest = z.infer<typeof UpdateVendorAchMethodRequest>;

export const UpdateVendorAchMethodResult = z.object({ vendorId: id });
export type UpdateVendorAchMethodResult = z.infer<typeof UpdateVendorAchMethodResult>;
