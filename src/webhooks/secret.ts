import { hash, timingSafeEqual } from "node:crypto";

// The one-shot form: no Hash object a call (every delivery checks its secret).
const digest = (s: string) => hash("sha256", s, "buffer");

/**
 * A constant-time check of presented secrets against the expected one (any lengths): both
 * sides are hashed so lengths match and timing does not depend on the input. The expected
 * side is hashed once.
 */
export function secretMatcher(expected: string): (presented: string | undefined) => boolean {
  const want = digest(expected);
  return (presented) => typeof presented === "string" && timingSafeEqual(digest(presented), want);
}

/** One-off form of `secretMatcher`. */
export function secretMatches(presented: string | undefined, expected: string): boolean {
  return secretMatcher(expected)(presented);
}
