import { z } from 'zod';
import { CheckDeposit } from './check-deposit.js';
import { Customer } from './customer.js';
import { Disbursement } from './disbursement.js';
import { Payment } from './payment.js';
import { PaymentLink } from './payment-link.js';

// List responses (4.6, decision “Pagination”): {<plural>: [...], totalResults}, totalResults counting every match.
const totalResults = z.int().min(0);

export const CustomerList = z.object({ customers: z.array(Customer), totalResults });
export type CustomerList = z.infer<typeof CustomerList>;

export const PaymentLinkList = z.object({ paymentLinks: z.array(PaymentLink), totalResults });
export type PaymentLinkList = z.infer<typeof PaymentLinkList>;

export const PaymentList = z.object({ payments: z.array(Payment), totalResults });
export type PaymentList = z.infer<typeof PaymentList>;

export const DisbursementList = z.object({ disbursements: z.array(Disbursement), totalResults });
export type DisbursementList = z.infer<typeof DisbursementList>;

export const CheckDepositList = z.object({ checkDeposits: z.array(CheckDeposit), totalResults });
export type CheckDepositList = z.infer<typeof CheckDepositList>;

/** {message} answers of 4.5 and 4.11. */
export const MessageResponse = z.object({ message: z.string() });
export type MessageResponse = z.infer<typeof MessageResponse>;
