import type { App, BlockAction, ButtonAction, ViewSubmitAction } from "@slack/bolt";
import type { Feature } from "../feature.js";
import type { Logger } from "../log.js";
import type { KeyCheck } from "./check-key.js";
import type { ConnectionStore } from "./connection-store.js";
import { workspaceIdOf } from "./workspace-id.js";
import {
  CONNECT_ACTIONS,
  CONNECT_FIELDS,
  CONNECT_MODAL,
  renderConnectedModal,
  renderConnectionSection,
  renderConnectModal,
  webhookUrl,
} from "./connect-blocks.js";
import type { KnownBlock } from "../slack/render/known-blocks.js";

export interface ConnectDeps {
  connections: Pick<ConnectionStore, "get" | "connect" | "rotateSecret" | "disconnect" | "summary">;
  /** Calls the service with the key; the answer never contains the key. */
  checkKey(apiKey: string, baseUrl: string): Promise<KeyCheck>;
  /** ADMIN_USER_IDS when set, else Slack's is_admin / is_owner of that user. */
  isAdmin(workspaceId: string, userId: string): Promise<boolean>;
  /** INSIGHT_BASE_URL when the deployment fixes it; else the modal asks. */
  fixedBaseUrl: string | undefined;
  publicUrl: string | undefined;
  /** The Home tab is published again after a change (with the connection section on top). */
  refreshHome(workspaceId: string, userId: string): Promise<void>;
  /** Told after connect, disconnect and rotation, so cached workspace clients are rebuilt. */
  changed?(workspaceId: string): void;
  logger: Logger;
}

const NOT_ADMIN = "Only workspace admins can connect the Insight Service.";

/** The Home tab section for this viewer. The secret is in the URL: admins only. */
export async function connectionBlocks(
  deps: Pick<ConnectDeps, "connections" | "isAdmin" | "publicUrl">,
  workspaceId: string,
  userId: string,
): Promise<KnownBlock[]> {
  const [conn, summary, admin] = await Promise.all([
    deps.connections.get(workspaceId),
    deps.connections.summary(workspaceId),
    deps.isAdmin(workspaceId, userId).catch(() => false),
  ]);
  return renderConnectionSection(
    conn
      ? {
          connected: true,
          connectedBy: conn.connectedBy,
          connectedAt: conn.connectedAt,
          webhookUrl: webhookUrl(deps.publicUrl, conn.webhookSecret),
          ...(summary.keyRejectedAt ? { keyRejectedAt: summary.keyRejectedAt } : {}),
        }
      : { connected: false },
    admin,
  );
}

/**
 * The modal's submission: checks the key, then saves it with a fresh webhook secret. Returns
 * the inline errors to show, or the view that shows the webhook URL and the dashboard steps.
 */
export async function submitConnect(
  deps: ConnectDeps,
  a: { workspaceId: string; userId: string; apiKey: string; baseUrl: string | undefined },
): Promise<{ errors: Record<string, string> } | { view: ReturnType<typeof renderConnectedModal> }> {
  if (!(await deps.isAdmin(a.workspaceId, a.userId))) {
    return { errors: { [CONNECT_FIELDS.apiKey.block]: NOT_ADMIN } };
  }
  const apiKey = a.apiKey.trim();
  if (!apiKey || /\s/.test(apiKey)) {
    return { errors: { [CONNECT_FIELDS.apiKey.block]: "Paste the key alone, without spaces." } };
  }
  const baseUrl = (deps.fixedBaseUrl ?? a.baseUrl ?? "").trim().replace(/\/+$/, "");
  if (!deps.fixedBaseUrl && !/^https?:\/\/\S+$/.test(baseUrl)) {
    return {
      errors: {
        [CONNECT_FIELDS.baseUrl.block]: "Enter the service's address, such as https://insight.example.com",
      },
    };
  }
  const check = await deps.checkKey(apiKey, baseUrl);
  if (!check.ok) return { errors: { [CONNECT_FIELDS.apiKey.block]: check.problem } };
  const secret = await deps.connections.connect(a.workspaceId, { apiKey, baseUrl, by: a.userId });
  deps.changed?.(a.workspaceId);
  // Who and where, never the key.
  deps.logger.info({ workspace: a.workspaceId, user: a.userId }, "Insight Service connected");
  return { view: renderConnectedModal(webhookUrl(deps.publicUrl, secret)) };
}

type Ctx = { teamId?: string; enterpriseId?: string; isEnterpriseInstall?: boolean };
const workspaceOf = (c: Ctx) => workspaceIdOf(c) ?? "";

/** Connect, Change API key, New webhook secret and Disconnect, on the Home tab. */
export function registerConnect(app: App, deps: ConnectDeps): void {
  app.action<BlockAction<ButtonAction>>(CONNECT_ACTIONS.open, async ({ ack, body, client, context }) => {
    await ack();
    const ws = workspaceOf(context);
    try {
      const admin = await deps.isAdmin(ws, body.user.id);
      await client.views.open({
        trigger_id: body.trigger_id,
        view: admin
          ? renderConnectModal({ askBaseUrl: !deps.fixedBaseUrl })
          : renderConnectModal({ askBaseUrl: false, problem: NOT_ADMIN }),
      });
    } catch (err) {
      deps.logger.error({ err, workspace: ws }, "could not open the Connect modal");
    }
  });

  app.view<ViewSubmitAction>(CONNECT_MODAL, async ({ ack, body, view, context }) => {
    const ws = workspaceOf(context);
    const values = view.state.values;
    const apiKey = values[CONNECT_FIELDS.apiKey.block]?.[CONNECT_FIELDS.apiKey.action]?.value ?? "";
    const baseUrl = values[CONNECT_FIELDS.baseUrl.block]?.[CONNECT_FIELDS.baseUrl.action]?.value ?? undefined;
    let result: Awaited<ReturnType<typeof submitConnect>>;
    try {
      result = await submitConnect(deps, { workspaceId: ws, userId: body.user.id, apiKey, baseUrl });
    } catch (err) {
      deps.logger.error({ err, workspace: ws }, "connect failed");
      result = {
        errors: { [CONNECT_FIELDS.apiKey.block]: "Something went wrong while saving. Please try again." },
      };
    }
    if ("errors" in result) {
      await ack({ response_action: "errors", errors: result.errors });
      return;
    }
    await ack({ response_action: "update", view: result.view });
    await deps
      .refreshHome(ws, body.user.id)
      .catch((err: unknown) => deps.logger.warn({ err }, "home refresh failed"));
  });

  app.action<BlockAction<ButtonAction>>(CONNECT_ACTIONS.rotate, async ({ ack, body, client, context }) => {
    await ack();
    const ws = workspaceOf(context);
    try {
      if (!(await deps.isAdmin(ws, body.user.id))) return;
      const secret = await deps.connections.rotateSecret(ws);
      deps.changed?.(ws);
      if (secret) {
        deps.logger.info({ workspace: ws, user: body.user.id }, "webhook secret rotated");
        await client.views.open({
          trigger_id: body.trigger_id,
          view: renderConnectedModal(webhookUrl(deps.publicUrl, secret)),
        });
      }
      await deps.refreshHome(ws, body.user.id);
    } catch (err) {
      deps.logger.error({ err, workspace: ws }, "webhook secret rotation failed");
    }
  });

  app.action<BlockAction<ButtonAction>>(CONNECT_ACTIONS.disconnect, async ({ ack, body, context }) => {
    await ack();
    const ws = workspaceOf(context);
    try {
      if (!(await deps.isAdmin(ws, body.user.id))) return;
      await deps.connections.disconnect(ws);
      deps.changed?.(ws);
      deps.logger.info({ workspace: ws, user: body.user.id }, "Insight Service disconnected");
      await deps.refreshHome(ws, body.user.id);
    } catch (err) {
      deps.logger.error({ err, workspace: ws }, "disconnect failed");
    }
  });
}

/**
 * Connect on the Home tab (many workspaces): acts on the installation records of the request's
 * own workspace (its team id), whatever services that workspace has built.
 */
export function connectFeature<D, Command>(deps: ConnectDeps): Feature<D, Command> {
  return { name: "connect", interactions: (app) => registerConnect(app, deps) };
}
