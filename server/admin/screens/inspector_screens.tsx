/** The signed-request inspector: decodes, checks and dry-runs a pasted signed_request. */
import { type Context, Hono } from "hono";
import { listApps } from "../../../db/queries/apps.ts";
import type { Deps } from "../../deps.ts";
import { SIGNED_REQUEST_FIELD } from "../../launch/contract.ts";
import { type Inspection, inspectSignedRequest } from "../inspector.ts";
import { adminContext, isRefusal, type ScreenEnv, str } from "./form_helpers.ts";
import { adminPage, Banner, Csrf, errorMap, type Errors, Field } from "./layout.tsx";

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

/** The inspector screen. */
export function inspectorScreens(deps: Deps): Hono<ScreenEnv> {
  const screens = new Hono<ScreenEnv>();

  async function inspectorPage(
    c: Context<ScreenEnv>,
    state: { appName: string; value: string; errors: Errors; result: Inspection | null },
    status: 200 | 400 | 404 = 200,
  ) {
    const ctx = adminContext(c, "inspector");
    const apps = await listApps(deps.sql);
    return c.html(
      adminPage(
        ctx,
        "Signed-request inspector",
        <>
          <p>
            Paste a <code>{SIGNED_REQUEST_FIELD}</code>{" "}
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
              label={SIGNED_REQUEST_FIELD}
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

  screens.get(
    "/inspector",
    (c) =>
      inspectorPage(c, { appName: c.req.query("app") ?? "", value: "", errors: {}, result: null }),
  );

  screens.post("/inspector", async (c) => {
    const form = c.get("form");
    const appName = str(form, "appName");
    const value = str(form, "signedRequest");
    if (!value.trim()) {
      return inspectorPage(c, {
        appName,
        value,
        errors: { signedRequest: `required: paste the ${SIGNED_REQUEST_FIELD} value` },
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

  return screens;
}
