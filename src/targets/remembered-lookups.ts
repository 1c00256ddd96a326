// What a target adapter looked up or created in the remote books (an account, an item, a customer or
// contact), remembered per key for the adapter's life: asked once even when pushes ask at the same time; a
// failed lookup (an outage) is not remembered, so the next ask tries again.

export class RememberedLookups<K, V> {
  private readonly pending = new Map<K, Promise<V>>();

  /** The remembered answer for the key, else `lookup`'s (remembered unless it fails). */
  get(key: K, lookup: () => Promise<V>): Promise<V> {
    let pending = this.pending.get(key);
    if (!pending) {
      pending = lookup();
      pending.catch(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    return pending;
  }

  has(key: K): boolean {
    return this.pending.has(key);
  }

  /** An answer found another way (a backlog's lookup in bulk). */
  remember(key: K, value: V): void {
    this.pending.set(key, Promise.resolve(value));
  }
}
