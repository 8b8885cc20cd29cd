/**
 * Counts wrong-secret requests per client address in a sliding minute. Past the limit the
 * receiver still answers 404 (the operator contract), but slowly, on a closed connection and
 * without a log line each, which caps guessing and the work and noise an attacker can cause.
 * Memory is bounded: the oldest addresses are forgotten first.
 */
export class WrongSecretLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly limitPerMinute = 30,
    private readonly maxAddresses = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether this address is over its limit right now. */
  blocked(address: string): boolean {
    return this.recent(address).length >= this.limitPerMinute;
  }

  /**
   * Counts one wrong secret, limited ones too (a steady guesser stays limited); true only when
   * this one takes the address to its limit. Keeps the newest `limitPerMinute` times at most.
   */
  record(address: string): boolean {
    const list = this.recent(address);
    const wasBlocked = list.length >= this.limitPerMinute;
    list.push(this.now());
    if (list.length > this.limitPerMinute) list.shift();
    this.hits.delete(address);
    this.hits.set(address, list);
    if (this.hits.size > this.maxAddresses) {
      const oldest = this.hits.keys().next().value;
      if (oldest !== undefined) this.hits.delete(oldest);
    }
    return !wasBlocked && list.length >= this.limitPerMinute;
  }

  private recent(address: string): number[] {
    const cutoff = this.now() - 60_000;
    return (this.hits.get(address) ?? []).filter((t) => t > cutoff);
  }
}
