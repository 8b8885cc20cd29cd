/*
 * The service's webhook side (spec section 6 and the state machine of section 3): registered
 * webhooks are enabled until a delivery gets a non-2xx answer or no answer within the timeout;
 * then they are disabled, keep the error as lastError, and receive nothing until reEnable.
 */
import { Agent, request } from "undici";
import type { Logger } from "../../src/log.js";
import type { EmulatorWebhookType, LooseEnvelope } from "./events.js";

export interface WebhookRegistration {
  url: string;
  types: EmulatorWebhookType[];
  /** The chat groups that trigger it; absent: every group. */
  groupIds?: string[];
}

export interface WebhookInfo {
  id: string;
  url: string;
  types: EmulatorWebhookType[];
  groupIds?: string[];
  state: "enabled" | "disabled";
  lastError?: string;
}

export interface DeliveryResult {
  webhookId: string;
  status?: number;
  ok: boolean;
  error?: string;
}

export interface DeliveryRecord extends DeliveryResult {
  webhookType: string;
  actionType: string;
  ms: number;
  at: Date;
}

export interface WebhookSenderOptions {
  timeoutMs: number;
  logger: Logger;
  now: () => Date;
}

export class WebhookSender {
  private readonly hooks = new Map<string, WebhookInfo>();
  private readonly log: DeliveryRecord[] = [];
  private readonly agent = new Agent({ connections: 16 });
  private seq = 0;

  constructor(private readonly opts: WebhookSenderOptions) {}

  register(r: WebhookRegistration): { id: string } {
    const id = `wh_${++this.seq}`;
    this.hooks.set(id, {
      id,
      url: r.url,
      types: [...r.types],
      ...(r.groupIds ? { groupIds: [...r.groupIds] } : {}),
      state: "enabled",
    });
    return { id };
  }

  get(id: string): WebhookInfo | undefined {
    const h = this.hooks.get(id);
    return h ? copy(h) : undefined;
  }

  list(): WebhookInfo[] {
    return [...this.hooks.values()].map(copy);
  }

  /** What "re-enable in the dashboard" does: deliveries resume; lastError stays for reference. */
  reEnable(id: string): WebhookInfo | undefined {
    const h = this.hooks.get(id);
    if (!h) return undefined;
    h.state = "enabled";
    return copy(h);
  }

  remove(id: string): boolean {
    return this.hooks.delete(id);
  }

  deliveries(): DeliveryRecord[] {
    return [...this.log];
  }

  /** POSTs the event to every enabled webhook that subscribes to its type and group. */
  async send(event: LooseEnvelope): Promise<DeliveryResult[]> {
    const targets = [...this.hooks.values()].filter(
      (h) =>
        h.state === "enabled" &&
        (h.types as string[]).includes(event.webhookType) &&
        (h.groupIds === undefined || h.groupIds.includes(String(event.payload.groupId))),
    );
    return Promise.all(targets.map((h) => this.deliver(h, event)));
  }

  async close(): Promise<void> {
    await this.agent.destroy();
  }

  private async deliver(h: WebhookInfo, event: LooseEnvelope): Promise<DeliveryResult> {
    const started = performance.now();
    const timeoutMs = this.opts.timeoutMs;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error("timeout")), timeoutMs);
    let result: DeliveryResult;
    try {
      const res = await request(h.url, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "insight-service-emulator/1" },
        body: JSON.stringify(event),
        dispatcher: this.agent,
        signal: controller.signal,
      });
      // Drain so the connection can be reused; the answer's body means nothing to the service.
      await res.body.dump().catch(() => undefined);
      const ok = res.statusCode >= 200 && res.statusCode <= 299;
      result = ok
        ? { webhookId: h.id, status: res.statusCode, ok }
        : { webhookId: h.id, status: res.statusCode, ok, error: `endpoint answered HTTP ${res.statusCode}` };
    } catch (e) {
      const error = controller.signal.aborted
        ? `endpoint did not answer within ${timeoutMs} ms`
        : `delivery failed: ${describe(e)}`;
      result = { webhookId: h.id, ok: false, error };
    } finally {
      clearTimeout(timer);
    }
    const ms = Math.round(performance.now() - started);
    if (!result.ok) {
      // Section 3: any failure disables the webhook until a person re-enables it.
      h.state = "disabled";
      h.lastError = result.error;
      this.opts.logger.warn(
        { webhookId: h.id, webhookType: event.webhookType, status: result.status, error: result.error },
        "emulator: webhook delivery failed; webhook disabled until re-enabled",
      );
    } else {
      this.opts.logger.debug(
        { webhookId: h.id, webhookType: event.webhookType, ms },
        "emulator: webhook delivered",
      );
    }
    // Bounded like the request log, for long demo runs.
    if (this.log.length >= 100_000) this.log.splice(0, 10_000);
    this.log.push({
      ...result,
      webhookType: event.webhookType,
      actionType: event.actionType,
      ms,
      at: this.opts.now(),
    });
    return result;
  }
}

function copy(h: WebhookInfo): WebhookInfo {
  return { ...h, types: [...h.types], ...(h.groupIds ? { groupIds: [...h.groupIds] } : {}) };
}

function describe(e: unknown): string {
  if (e && typeof e === "object") {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    const message = (e as { message?: unknown }).message;
    if (typeof message === "string") return message;
  }
  return String(e);
}
