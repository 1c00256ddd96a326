// Money applied to several documents owed together (a returned payment of a link's invoice and its memos,
// owed again at a target as one document each): each document in order takes what it owes, the last the rest,
// so the documents owe together what the service says is owed, and money beyond it lands where it lands on any
// single document (the customer's credit). One rule for every target, so Tryton and Xero spread alike.

/** A document's share of the money. */
export interface Share<T> {
  item: T;
  cents: number;
}

/**
 * `cents` spread over `items` in their order: each takes `min(what is left, what it owes)`, the last one all
 * that is left; documents after the money ran out take nothing and are left out. `owes` is asked only for the
 * documents that need it (never the last), so a target reading each document pays only for those.
 */
export async function spreadInOrder<T>(
  items: readonly T[],
  cents: number,
  owes: (item: T) => number | Promise<number>,
): Promise<Share<T>[]> {
  const shares: Share<T>[] = [];
  let left = cents;
  for (const [i, item] of items.entries()) {
    if (left <= 0) break;
    const last = i === items.length - 1;
    const take = last ? left : Math.min(left, Math.max(0, await owes(item)));
    if (take > 0) shares.push({ item, cents: take });
    left -= take;
  }
  return shares;
}
