/**
 * Ids already handled (service event ids, command ids, reconcile request ids), the last `limit` of them, so a
 * long-lived workflow drops a repeat while its state stays small; carried through continue-as-new as toArray().
 */
export class SeenIds {
  private readonly ids: string[];
  private readonly set: Set<string>;

  private readonly limit: number;
  constructor(initial: readonly string[] = [], limit = 500) {
    this.limit = limit;
    this.ids = initial.slice(-limit);
    this.set = new Set(this.ids);
  }

  /** Records the id; false when it was seen before. */
  add(id: string): boolean {
    if (this.set.has(id)) return false;
    this.set.add(id);
    this.ids.push(id);
    if (this.ids.length > this.limit) this.set.delete(this.ids.shift()!);
    return true;
  }

  toArray(): string[] {
    return [...this.ids];
  }
}
