/**
 * A map bounded by two generations: a hit in the old generation moves to the young one, and when
 * the young one is full the old one is dropped. What is used stays; what is not goes, without
 * recency bookkeeping on every hit.
 */
export class GenerationalMap<V> {
  #young = new Map<string, V>();
  #old = new Map<string, V>();
  constructor(readonly generationSize: number) {}

  get(key: string): V | undefined {
    const young = this.#young.get(key);
    if (young !== undefined) return young;
    const old = this.#old.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: string, value: V): void {
    if (this.#young.size >= this.generationSize) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(key, value);
  }
}
