import { describe, expect, it } from "vitest";
import { secretMatches } from "../../src/webhooks/secret.js";

const SECRET = "whsec_4f9a2c7e1b3d5f60";

describe("secretMatches", () => {
  it("accepts the exact secret", () => {
    expect(secretMatches(SECRET, SECRET)).toBe(true);
    expect(secretMatches(["whsec_", "4f9a2c7e1b3d5f60"].join(""), SECRET)).toBe(true);
  });

  it("refuses a secret of the same length that differs in one character", () => {
    const wrong = `${SECRET.slice(0, -1)}1`;
    expect(wrong).toHaveLength(SECRET.length);
    expect(secretMatches(wrong, SECRET)).toBe(false);
  });

  it("refuses prefixes, extensions and case changes (different lengths do not throw)", () => {
    expect(secretMatches(SECRET.slice(0, 8), SECRET)).toBe(false);
    expect(secretMatches(`${SECRET}x`, SECRET)).toBe(false);
    expect(secretMatches(SECRET.toUpperCase(), SECRET)).toBe(false);
    expect(secretMatches("", SECRET)).toBe(false);
    expect(secretMatches("x".repeat(10_000), SECRET)).toBe(false);
  });

  it("refuses a missing secret", () => {
    expect(secretMatches(undefined, SECRET)).toBe(false);
  });

  it("compares unicode by its bytes: equal text matches, a look-alike does not", () => {
    const unicode = "clé-secrète-🔑-密钥";
    expect(secretMatches("clé-secrète-🔑-密钥", unicode)).toBe(true);
    // "é" composed (U+00E9) vs decomposed (e + U+0301): same look, different bytes.
    expect(secretMatches(unicode.normalize("NFD"), unicode)).toBe(false);
    expect(secretMatches("cle-secrete-🔑-密钥", unicode)).toBe(false);
  });
});
