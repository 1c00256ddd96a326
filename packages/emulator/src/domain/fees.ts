/** Decision “Fees”: the card processing fee, F = round(amount * 2.9%) + 30. */
export function cardFeeCents(amountCents: number): number {
  return Math.round(amountCents * 0.029) + 30;
}

/** Decision “Fees”: the payer's share P = round(F * p / 100); the business absorbs F - P. */
export function passedThroughCents(feeCents: number, percent: number): number {
  return Math.round((feeCents * percent) / 100);
}
