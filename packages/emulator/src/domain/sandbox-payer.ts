import { newId } from '../store/ids.js';

/** The payer the sandbox pays with (a payment, an authorized charge): one bank account, one card, one name. */
export function sandboxPayerMethod<T extends string>(type: T) {
  return {
    id: newId('pm'),
    type,
    achDetails:
      type === 'ACH'
        ? { bankName: 'Payer Bank', routingNumber: '011000015', accountNumberLastFour: '6789' }
        : null,
    cardDetails:
      type === 'Card'
        ? { brand: 'visa', last4: '4242', holderName: 'Sandbox Payer', expMonth: '12', expYear: '2030' }
        : null,
  };
}

/** The billing details both shapes share; a payment adds the payer's email, an authorization its country. */
export const SANDBOX_PAYER_BILLING = {
  name: 'Sandbox Payer',
  companyName: null,
  street: null,
  city: null,
  state: null,
  zip: null,
} as const;
