import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../helpers/app-harness.js";

const PASSWORD = "admin-password-for-tests";
const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;

async function get(url: string, authorization?: string) {
  const res = await request(url, { headers: authorization ? { authorization } : {} });
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
}

describe("admin page over HTTP, ADMIN_PASSWORD set", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { ADMIN_PASSWORD: PASSWORD } });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("asks for credentials (401 with a Basic challenge) and refuses a wrong password", async () => {
    const none = await get(`${h.baseUrl}/admin/queues`);
    expect(none.status).toBe(401);
    expect(String(none.headers["www-authenticate"])).toMatch(/^Basic realm="Insight Relay admin"/);
    const wrong = await get(`${h.baseUrl}/admin/queues`, basic("admin", "not-the-password"));
    expect(wrong.status).toBe(401);
    // The API behind the page is protected too, not only the HTML.
    const api = await get(`${h.baseUrl}/admin/queues/api/queues`);
    expect(api.status).toBe(401);
  });

  it("serves the dashboard and its queue API with the right password", async () => {
    const page = await get(`${h.baseUrl}/admin/queues`, basic("admin", PASSWORD));
    expect(page.status).toBe(200);
    expect(page.body).toContain("<title>");
    const api = await get(`${h.baseUrl}/admin/queues/api/queues`, basic("admin", PASSWORD));
    expect(api.status).toBe(200);
    const names = (JSON.parse(api.body) as { queues: { name: string }[] }).queues.map((q) => q.name);
    expect(names).toEqual(expect.arrayContaining(["deliveries", "slack-out", "enrich-refresh"]));
  });

  it("never logs the password", () => {
    expect(h.logLines.join("")).not.toContain(PASSWORD);
  });
});

describe("admin page over HTTP, ADMIN_PASSWORD unset", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("is absent: 404 with or without credentials", async () => {
    expect((await get(`${h.baseUrl}/admin/queues`)).status).toBe(404);
    expect((await get(`${h.baseUrl}/admin/queues`, basic("admin", PASSWORD))).status).toBe(404);
    expect((await get(`${h.baseUrl}/healthz`)).status).toBe(200);
  });
});
