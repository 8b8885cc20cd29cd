import { describe, expect, it } from "vitest";
import { basicPassword, passwordMatches } from "../../src/admin/basic-auth.js";

const header = (userPass: string) => `Basic ${Buffer.from(userPass, "utf8").toString("base64")}`;

describe("admin basic auth", () => {
  it("reads the password of a Basic header, colons in the password included", () => {
    expect(basicPassword(header("admin:s3cret-pass"))).toBe("s3cret-pass");
    expect(basicPassword(header("anyone:a:b:c"))).toBe("a:b:c");
    expect(basicPassword(header(":only-password"))).toBe("only-password");
  });

  it("finds no password in missing, malformed or non-Basic headers", () => {
    expect(basicPassword(undefined)).toBeUndefined();
    expect(basicPassword("Bearer abc")).toBeUndefined();
    expect(basicPassword(header("no-colon-here"))).toBeUndefined();
    expect(basicPassword("Basic !!!")).toBeUndefined();
  });

  it("matches only the exact password", () => {
    expect(passwordMatches("correct horse", "correct horse")).toBe(true);
    expect(passwordMatches("correct hors", "correct horse")).toBe(false);
    expect(passwordMatches("correct horse ", "correct horse")).toBe(false);
    expect(passwordMatches(undefined, "correct horse")).toBe(false);
    expect(passwordMatches("", "correct horse")).toBe(false);
  });
});
