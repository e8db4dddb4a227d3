/** The launch log and the signed-request inspector. */
import type { Context, Hono } from "hono";
import { listApps } from "../../../db/queries/apps.ts";
import type { Deps } from "../../deps.ts";
import { AppError } from "../../http/errors.ts";
import { type Inspection, inspectSignedRequest } from "../inspector.ts";
import { launchDetail, launchLog } from "../launch_log.ts";
import { adminPage, Banner, Csrf, errorMap, type Errors, Field } from "./layout.tsx";
import { adminContext, isRefusal, type ScreenEnv, str } from "./routes.tsx";

/** Launch attempts per page. */
export const LAUNCHES_PAGE = 50;

function when(d: Date): string {
  return d.toISOString().replace("T", " ").slice(0, 19) + " UTC";
}

function InspectionView(props: { r: Inspection }) {
  const { r } = props;
  return (
    <section data-testid="inspection" aria-labelledby="result-h">
      <h2 id="result-h">Result for {r.appName}</h2>
      <p data-testid="signature" class={r.signature === "valid" ? "notice" : "alert"}>
        Signature:{" "}
        <strong>
          {r.signature === "valid"
            ? "matches"
            : r.signature === "invalid"
            ? "does not match"
            : "malformed"}
        </strong>
      </p>
      {r.causes.length
        ? (
          <>
            <h3>Likely cause</h3>
            <ul data-testid="causes">
              {r.causes.map((cause) => <li key={cause}>{cause}</li>)}
            </ul>
          </>
        )
        : null}
      <h3>Decoded payload</h3>
      {r.decodeError ? <p class="alert">{r.decodeError}</p> : null}
      {r.payload !== null
        ? <pre data-testid="payload">{JSON.stringify(r.payload, null, 2)}</pre>
        : r.payloadText
        ? <pre>{r.payloadText}</pre>
        : null}
      {r.validation
        ? (
          <>
            <h3>Validation</h3>
            <p data-testid="validation">{r.validation.message}</p>
            {r.validation.errors.length
              ? (
                <ul data-testid="problems">
                  {r.validation.errors.map((e) => (
                    <li key={e.path}>
                      <code>{e.path}</code>: {e.message}
                    </li>
                  ))}
                </ul>
              )
              : null}
          </>
        )
        : null}
      {r.plan
        ? (
          <>
            <h3>Plan (dry run, nothing written)</h3>
            <ul data-testid="plan">
              <li>Agent: {r.plan.agent}</li>
              <li>Customer: {r.plan.customer}</li>
              <li>Session: {r.plan.session}</li>
              <li>Assign: {r.plan.assign ? "yes" : "no"}</li>
            </ul>
          </>
        )
        : null}
      {r.planError
        ? (
          <>
            <h3>Plan (dry run)</h3>
            <p class="alert" data-testid="plan-error">
              The launch would be refused ({String(r.planError.status)}): {r.planError.message}
            </p>
          </>
        )
        : null}
    </section>
  );
}

/** Registers the launch log and inspector screens. */
export function logScreens(app: Hono<ScreenEnv>, deps: Deps): void {
  const ctxOf = adminContext;

  app.get("/launches", async (c) => {
    const appName = (c.req.query("app") ?? "").trim().slice(0, 64);
    const outcome = (c.req.query("outcome") ?? "").trim().slice(0, 64);
    const before = Number(c.req.query("before") ?? "");
    const rows = await launchLog(deps, {
      app: appName || undefined,
      outcome: outcome || undefined,
      beforeId: Number.isSafeInteger(before) && before > 0 ? before : undefined,
    }, LAUNCHES_PAGE + 1);
    const more = rows.length > LAUNCHES_PAGE;
    const shown = rows.slice(0, LAUNCHES_PAGE);
    const next = new URLSearchParams({
      ...(appName ? { app: appName } : {}),
      ...(outcome ? { outcome } : {}),
      before: String(shown.at(-1)?.id ?? 0),
    });
    const apps = await listApps(deps.sql);
    return c.html(adminPage(
      ctxOf(c, "launches"),
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
          <button type="submit" class="secondary">Filter</button>
        </form>
        <table data-testid="launches">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">App</th>
              <th scope="col">Outcome</th>
              <th scope="col">Agent</th>
              <th scope="col">Session</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((l) => (
              <tr key={l.id}>
                <td>
                  <a href={`/admin/launches/${l.id}`}>{when(l.createdAt)}</a>
                </td>
                <td>{l.appName}</td>
                <td>{l.outcome}</td>
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

  app.get("/launches/:id", async (c) => {
    const id = Number(c.req.param("id"));
    if (!Number.isSafeInteger(id) || id <= 0) {
      throw new AppError(404, "launch_not_found", "Launch not found");
    }
    const l = await launchDetail(deps, id);
    return c.html(adminPage(
      ctxOf(c, "launches"),
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
        <h2>Decoded payload</h2>
        {l.payload
          ? <pre data-testid="payload">{JSON.stringify(l.payload, null, 2)}</pre>
          : <p>None recorded (the signature did not verify, or there was no payload).</p>}
      </>,
    ));
  });

  async function inspectorPage(
    c: Context<ScreenEnv>,
    state: { appName: string; value: string; errors: Errors; result: Inspection | null },
    status: 200 | 400 | 404 = 200,
  ) {
    const ctx = ctxOf(c, "inspector");
    const apps = await listApps(deps.sql);
    return c.html(
      adminPage(
        ctx,
        "Signed-request inspector",
        <>
          <p>
            Paste a <code>signed_request</code>{" "}
            and choose its app: the inspector decodes it, checks the signature, names the likely
            cause of a mismatch, lists every validation problem and shows the plan the launch would
            run. It writes nothing.
          </p>
          <Banner
            error={Object.keys(state.errors).length ? "Check the fields marked below." : null}
          />
          <form method="post" action="/admin/inspector">
            <Csrf ctx={ctx} />
            <Field
              name="appName"
              label="App"
              value={state.appName}
              errors={state.errors}
              options={apps.map((a) => [a.appName, `${a.appName} (${a.name})`])}
            />
            <Field
              name="signedRequest"
              label="signed_request"
              value={state.value}
              errors={state.errors}
              textarea
              rows={6}
            />
            <button type="submit">Inspect</button>
          </form>
          {state.result ? <InspectionView r={state.result} /> : null}
        </>,
      ),
      status,
    );
  }

  app.get(
    "/inspector",
    (c) =>
      inspectorPage(c, { appName: c.req.query("app") ?? "", value: "", errors: {}, result: null }),
  );

  app.post("/inspector", async (c) => {
    const form = c.get("form");
    const appName = str(form, "appName");
    const value = str(form, "signedRequest");
    if (!value.trim()) {
      return inspectorPage(c, {
        appName,
        value,
        errors: { signedRequest: "required: paste the signed_request value" },
        result: null,
      }, 400);
    }
    try {
      const result = await inspectSignedRequest(deps, appName, value);
      return inspectorPage(c, { appName, value, errors: {}, result });
    } catch (err) {
      if (isRefusal(err, 404)) {
        return inspectorPage(
          c,
          { appName, value, errors: errorMap(err.errors), result: null },
          404,
        );
      }
      throw err;
    }
  });
}
