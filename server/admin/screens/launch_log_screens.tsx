/** The launch log: launch attempts, filtered by app and outcome, and each one's detail. */
import { Hono } from "hono";
import { listApps } from "../../../db/queries/apps.ts";
import type { Deps } from "../../deps.ts";
import { AppError } from "../../http/errors.ts";
import { launchDetail, launchLog } from "../launch_log.ts";
import { adminContext, type ScreenEnv } from "./form_helpers.ts";
import { adminPage, ColumnHeads } from "./layout.tsx";

/** Launch attempts per page. */
export const LAUNCHES_PAGE = 50;

function when(d: Date): string {
  return d.toISOString().replace("T", " ").slice(0, 19) + " UTC";
}

/** The launch log screens. */
export function launchLogScreens(deps: Deps): Hono<ScreenEnv> {
  const screens = new Hono<ScreenEnv>();

  screens.get("/launches", async (c) => {
    const appName = (c.req.query("app") ?? "").trim().slice(0, 64);
    const outcome = (c.req.query("outcome") ?? "").trim().slice(0, 64);
    const before = Number(c.req.query("before") ?? "");
    const withWarnings = c.req.query("warnings") === "1";
    const rows = await launchLog(deps, {
      app: appName || undefined,
      outcome: outcome || undefined,
      withWarnings,
      beforeId: Number.isSafeInteger(before) && before > 0 ? before : undefined,
    }, LAUNCHES_PAGE + 1);
    const more = rows.length > LAUNCHES_PAGE;
    const shown = rows.slice(0, LAUNCHES_PAGE);
    const next = new URLSearchParams({
      ...(appName ? { app: appName } : {}),
      ...(outcome ? { outcome } : {}),
      ...(withWarnings ? { warnings: "1" } : {}),
      before: String(shown.at(-1)?.id ?? 0),
    });
    const apps = await listApps(deps.sql);
    return c.html(adminPage(
      adminContext(c, "launch-log"),
      "Launch log",
      <>
        <form method="get" action="/admin/launches" class="row" role="search">
          <label for="app">App</label>
          <select id="app" name="app">
            <option value="">any</option>
            {apps.map((a) => (
              <option key={a.appName} value={a.appName} selected={a.appName === appName}>
                {a.appName}
              </option>
            ))}
          </select>
          <label for="outcome">Outcome</label>
          <input
            id="outcome"
            name="outcome"
            value={outcome}
            placeholder="ok, invalid_signature, ..."
          />
          <label>
            <input type="checkbox" name="warnings" value="1" checked={withWarnings} />{" "}
            with warnings only
          </label>
          <button type="submit" class="secondary">Filter</button>
        </form>
        <table data-testid="launches">
          <ColumnHeads columns={["Time", "App", "Outcome", "Warnings", "Agent", "Session"]} />
          <tbody>
            {shown.map((l) => (
              <tr key={l.id}>
                <td>
                  <a href={`/admin/launches/${l.id}`}>{when(l.createdAt)}</a>
                </td>
                <td>{l.appName}</td>
                <td>{l.outcome}</td>
                <td data-testid="warning-count">{l.warnings.length || ""}</td>
                <td>{l.agentId ? String(l.agentId) : ""}</td>
                <td>{l.sessionId ? String(l.sessionId) : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {shown.length === 0 ? <p>No launch attempts match.</p> : null}
        {more ? <a class="button secondary" href={`/admin/launches?${next}`}>Older</a> : null}
      </>,
    ));
  });

  screens.get("/launches/:id", async (c) => {
    const id = Number(c.req.param("id"));
    if (!Number.isSafeInteger(id) || id <= 0) {
      throw new AppError(404, "launch_not_found", "Launch not found");
    }
    const l = await launchDetail(deps, id);
    return c.html(adminPage(
      adminContext(c, "launch-log"),
      `Launch ${l.id}`,
      <>
        <table>
          <tbody>
            <tr>
              <th scope="row">Time</th>
              <td>{when(l.createdAt)}</td>
            </tr>
            <tr>
              <th scope="row">App</th>
              <td>{l.appName}</td>
            </tr>
            <tr>
              <th scope="row">Outcome</th>
              <td data-testid="outcome">{l.outcome}</td>
            </tr>
            {l.message
              ? (
                <tr>
                  <th scope="row">Error</th>
                  <td data-testid="error">{l.message}</td>
                </tr>
              )
              : null}
            <tr>
              <th scope="row">Agent</th>
              <td>
                {l.agentId ? <a href={`/admin/users/${l.agentId}`}>{String(l.agentId)}</a> : ""}
              </td>
            </tr>
            <tr>
              <th scope="row">Session</th>
              <td>{l.sessionId ? String(l.sessionId) : ""}</td>
            </tr>
            <tr>
              <th scope="row">Client</th>
              <td>{l.clientAddress ?? ""} {l.userAgent ?? ""}</td>
            </tr>
          </tbody>
        </table>
        {l.errors.length
          ? (
            <>
              <h2>Field errors</h2>
              <ul data-testid="field-errors">
                {l.errors.map((e) => (
                  <li>
                    <code>{e.code}</code> <code>{e.path}</code>: {e.message}
                  </li>
                ))}
              </ul>
            </>
          )
          : null}
        {l.diagnosis
          ? (
            <>
              <h2>Diagnosis</h2>
              <p>
                Signature:{" "}
                <strong data-testid="diagnosis-signature">{l.diagnosis.signature}</strong>
              </p>
              {l.diagnosis.causes.length
                ? (
                  <ul data-testid="diagnosis-causes">
                    {l.diagnosis.causes.map((cause, i) => <li key={i}>{cause}</li>)}
                  </ul>
                )
                : null}
            </>
          )
          : null}
        <h2>Warnings</h2>
        {l.warnings.length
          ? (
            <ul data-testid="warnings">
              {l.warnings.map((w) => (
                <li>
                  <code>{w.code}</code> <code>{w.path}</code>: {w.message}
                </li>
              ))}
            </ul>
          )
          : <p>None: nothing was ignored, repaired or resolved.</p>}
        <h2>Decoded payload</h2>
        {l.payload
          ? <pre data-testid="payload">{JSON.stringify(l.payload, null, 2)}</pre>
          : <p>None recorded (the signature did not verify, or there was no payload).</p>}
      </>,
    ));
  });

  return screens;
}
