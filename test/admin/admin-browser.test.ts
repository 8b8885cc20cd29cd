import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Response } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../helpers/app-harness.js";

const CHROMIUM = "/usr/bin/chromium";
const PASSWORD = "browser-admin-password";

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `admin-browser tests skipped: ${CHROMIUM} is missing (install Debian's chromium: apt-get install -y chromium)`,
  );
}

/**
 * Debian's Chromium, headless. `launch` gives the browser a fresh temporary profile
 * (--user-data-dir) of its own, removed on close; each case gets a new context, so no
 * credentials carry over between cases.
 */
async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

describe.skipIf(!hasChromium)("admin page in headless Chromium", () => {
  let h: Harness;
  let off: Harness;
  let browser: Browser;
  const dir = mkdtempSync(join(tmpdir(), "insight-relay-admin-browser-"));

  beforeAll(async () => {
    [h, off] = await Promise.all([startHarness({ env: { ADMIN_PASSWORD: PASSWORD } }), startHarness()]);
    browser = await launch();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await Promise.all([h?.stop(), off?.stop()]);
    if (!process.env.KEEP_ADMIN_SCREENSHOT) rmSync(dir, { recursive: true, force: true });
  });

  /** Opens `url` in a new context; `password` is what the browser answers the challenge with. */
  async function open(url: string, password?: string) {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      ...(password !== undefined ? { httpCredentials: { username: "admin", password } } : {}),
    });
    const page = await context.newPage();
    const seen: Response[] = [];
    page.on("response", (r) => {
      if (r.url() === url) seen.push(r);
    });
    const navigation = await page
      .goto(url, { waitUntil: "domcontentloaded" })
      .then((res) => ({ status: res?.status(), error: undefined }))
      .catch((err: unknown) => ({ status: undefined, error: String(err) }));
    return { page, seen, ...navigation, close: () => context.close() };
  }

  it("401 without credentials and with a wrong password", async () => {
    // No credentials to answer the challenge with: Chromium sees the 401 and gives up.
    const none = await open(`${h.baseUrl}/admin/queues`);
    expect(none.seen.map((r) => r.status())).toEqual([401]);
    expect(none.seen[0]?.headers()["www-authenticate"]).toMatch(/^Basic realm=/);
    expect(none.error).toContain("ERR_INVALID_AUTH_CREDENTIALS");
    await none.close();
    const wrong = await open(`${h.baseUrl}/admin/queues`, "wrong-password");
    expect(wrong.status).toBe(401);
    expect(await wrong.page.textContent("body")).toContain("Authentication required");
    await wrong.close();
  });

  it("200 with the right password, and the dashboard lists every queue", async () => {
    const { page, status, close } = await open(`${h.baseUrl}/admin/queues`, PASSWORD);
    expect(status).toBe(200);
    for (const name of ["deliveries", "slack-out", "enrich-refresh"]) {
      await page.getByText(name, { exact: true }).first().waitFor({ timeout: 20_000 });
    }
    const text = (await page.textContent("body")) ?? "";
    expect(text).toContain("Insight Relay");
    const shot = join(dir, "admin-queues.png");
    await page.screenshot({ path: shot, fullPage: true });
    expect(existsSync(shot)).toBe(true);
    if (process.env.KEEP_ADMIN_SCREENSHOT) console.log(`admin screenshot: ${shot}`);
    await close();
  }, 60_000);

  it("404 when ADMIN_PASSWORD is unset", async () => {
    const { status, close } = await open(`${off.baseUrl}/admin/queues`, PASSWORD);
    expect(status).toBe(404);
    await close();
  });
});
