import { createHash, timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, Response } from "express";

export const ADMIN_REALM = "Insight Relay admin";

/** The password of a `Basic` Authorization header, or undefined when there is none. */
export function basicPassword(header: string | undefined): string | undefined {
  const m = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!m?.[1]) return undefined;
  const decoded = Buffer.from(m[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

/**
 * Compares in constant time over fixed-length digests, so neither the content nor the length
 * of the password leaks through timing.
 */
export function passwordMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/**
 * Basic auth with one password; the user name is not checked (the contract has only
 * ADMIN_PASSWORD). Failures answer 401 with a challenge so browsers show their login prompt.
 */
export function basicAuth(password: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (passwordMatches(basicPassword(req.headers.authorization), password)) {
      next();
      return;
    }
    res
      .status(401)
      .set("WWW-Authenticate", `Basic realm="${ADMIN_REALM}", charset="UTF-8"`)
      .set("Cache-Control", "no-store")
      .type("text/plain")
      .send("Authentication required");
  };
}
