import { WEBHOOK_PATH } from "../webhooks/route.js";

export const PLACEHOLDER_BASE = "https://<your-host>";

/** `<public base URL>/webhooks/insight/<WEBHOOK_SECRET>`; a placeholder host when the base is unknown. */
export function webhookUrl(secret: string, publicBase: string | undefined): string {
  const base = (publicBase ?? PLACEHOLDER_BASE).replace(/\/+$/, "");
  return `${base}${WEBHOOK_PATH.replace(":secret", encodeURIComponent(secret))}`;
}

/** Checks a --public-url value: an http(s) origin, optionally with a path prefix (a proxy). */
export function parsePublicBase(value: string): string | undefined {
  try {
    const u = new URL(value);
    if (u.protocol !== "https:" && u.protocol !== "http:") return undefined;
    if (u.search || u.hash || u.username || u.password) return undefined;
    return u.toString().replace(/\/+$/, "");
  } catch {
    return undefined;
  }
}
