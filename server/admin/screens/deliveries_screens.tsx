/**
 * An app's callbacks on the admin screens: the delivery log (each event with its attempts and a
 * Redeliver button), "Send test event" and the signing-secret rotation.
 */
import { LocalTime } from "../../http/local_time.tsx";
import { type Context, Hono } from "hono";
import type { Deps } from "../../deps.ts";
import { publicOrigin } from "../../http/public_origin.ts";
import { appByName } from "../apps.ts";
import { rotateCallbackSecret, sendTestEvent } from "../callback_settings.ts";
import { deliveries, type DeliveryRow, redeliver } from "../../callbacks/delivery_log.ts";
import { findAppByName } from "../../../db/queries/apps.ts";
import { AppError } from "../../http/errors.ts";
import { adminContext, idParam, type ScreenEnv } from "./form_helpers.ts";
import { adminPage, Banner, ColumnHeads, Csrf } from "./layout.tsx";
import { appDetailPage } from "./app_detail.tsx";

/** Events per page of the delivery log. */
export const DELIVERIES_PAGE = 50;

const STATUSES = ["pending", "delivering", "delivered", "failed"];

function EventRow(
  props: { appName: string; row: DeliveryRow; ctx: ReturnType<typeof adminContext> },
) {
  const r = props.row;
  return (
    <tr data-testid="delivery">
      <td>{r.id}</td>
      <td>
        <LocalTime date={r.createdAt} />
      </td>
      <td>
        <code>{r.type}</code>
      </td>
      <td>{r.referenceId ?? ""}</td>
      <td>{r.sessionId ?? ""}</td>
      <td data-testid="delivery-status">{r.status}</td>
      <td>
        <details>
          <summary>
            {r.attemptLog.length} attempt{r.attemptLog.length === 1 ? "" : "s"}
            {r.lastError ? `: ${r.lastError}` : ""}
          </summary>
          <ol>
            {r.attemptLog.map((a, i) => (
              <li key={i}>
                <LocalTime date={a.startedAt} /> · {a.statusCode ?? "no answer"} · {a.durationMs} ms
                {a.error ? ` · ${a.error}` : ""}
                {a.responseSnippet ? <pre>{a.responseSnippet}</pre> : null}
              </li>
            ))}
          </ol>
        </details>
      </td>
      <td>
        {r.status === "delivering" ? null : (
          <form
            method="post"
            action={`/admin/apps/${props.appName}/deliveries/${r.id}/redeliver`}
            class="inline"
          >
            <Csrf ctx={props.ctx} />
            <button type="submit" class="secondary" aria-label={`Redeliver event ${r.id}`}>
              Redeliver
            </button>
          </form>
        )}
      </td>
    </tr>
  );
}

/** The callback screens of one app. */
export function deliveriesScreens(deps: Deps): Hono<ScreenEnv> {
  const screens = new Hono<ScreenEnv>();
  const ctxOf = (c: Context<ScreenEnv>) => adminContext(c, "apps");
  const origin = publicOrigin(deps.config);

  async function logPage(c: Context<ScreenEnv>, banner: { notice?: string; error?: string }) {
    const name = c.req.param("name") ?? "";
    const app = await findAppByName(deps.sql, name);
    if (!app) throw new AppError(404, "app_not_found", `Unknown application: ${name}`);
    const status = STATUSES.includes(c.req.query("status") ?? "") ? c.req.query("status") : "";
    const rows = await deliveries(deps, {
      appId: app.id,
      status: status || undefined,
      limit: DELIVERIES_PAGE,
    });
    const ctx = ctxOf(c);
    return adminPage(
      ctx,
      `Deliveries of ${app.appName}`,
      <>
        <Banner notice={banner.notice} error={banner.error} />
        <p>
          Callback URL: <code>{app.callbackUrl ?? "none (callbacks are off)"}</code>.{" "}
          <a href={`/admin/apps/${app.appName}`}>Back to {app.appName}</a>
        </p>
        <div class="row">
          <form method="post" action={`/admin/apps/${app.appName}/callbacks/test`} class="inline">
            <Csrf ctx={ctx} />
            <button type="submit">Send test event</button>
          </form>
          <form method="get" class="inline" role="search">
            <label for="status">Status</label>
            <select id="status" name="status">
              <option value="">any</option>
              {STATUSES.map((s) => <option key={s} value={s} selected={s === status}>{s}</option>)}
            </select>
            <button type="submit" class="secondary">Filter</button>
          </form>
        </div>
        {rows.length
          ? (
            <div class="table-wrap" tabindex={0}>
              <table>
                <caption>The latest {DELIVERIES_PAGE} events, newest first</caption>
                <ColumnHeads
                  columns={[
                    "Id",
                    "Created",
                    "Type",
                    "Reference",
                    "Session",
                    "Status",
                    "Attempts",
                    "Action",
                  ]}
                />
                <tbody>
                  {rows.map((r) => <EventRow key={r.id} appName={app.appName} row={r} ctx={ctx} />)}
                </tbody>
              </table>
            </div>
          )
          : (
            <p class="empty">
              No events yet. Each callback this app's sessions send (created, updated, path runs)
              appears here with its delivery attempts.
            </p>
          )}
      </>,
    );
  }

  screens.get("/apps/:name/deliveries", async (c) => c.html(await logPage(c, {})));

  screens.post("/apps/:name/callbacks/test", async (c) => {
    try {
      const r = await sendTestEvent(deps, c.req.param("name"));
      const outcome = r.delivered
        ? `Test event delivered: HTTP ${r.attempt.statusCode} in ${r.attempt.durationMs} ms.`
        : null;
      const failure = r.delivered
        ? undefined
        : `Test event not delivered: ${r.attempt.error ?? `HTTP ${r.attempt.statusCode}`} (${
          r.status === "pending" ? "it will be retried" : "not retried"
        }).`;
      return c.html(await logPage(c, { notice: outcome ?? undefined, error: failure }));
    } catch (err) {
      if (err instanceof AppError && err.status === 409) {
        return c.html(await logPage(c, { error: err.message }), 409);
      }
      throw err;
    }
  });

  screens.post("/apps/:name/deliveries/:id/redeliver", async (c) => {
    const app = await findAppByName(deps.sql, c.req.param("name"));
    if (!app) throw new AppError(404, "app_not_found", `Unknown application`);
    const id = idParam(c);
    await redeliver(deps, id, app.id);
    return c.html(await logPage(c, { notice: `Event ${id} queued again.` }));
  });

  screens.post("/apps/:name/rotate-callback-secret", async (c) => {
    const name = c.req.param("name");
    const { callbackSecret: value, previousSecretExpiresAt } = await rotateCallbackSecret(
      deps,
      name,
    );
    const app = await appByName(deps, origin, name);
    return c.html(appDetailPage(ctxOf(c), app, {
      notice: previousSecretExpiresAt
        ? `The previous secret also signs until ${previousSecretExpiresAt.toISOString()}.`
        : undefined,
      secret: { label: "New callback signing secret", value },
    }));
  });

  return screens;
}
