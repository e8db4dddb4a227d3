/** The admin screens' page frame and form pieces: one layout, errors next to their fields. */
import type { Child } from "hono/jsx";
import { raw } from "hono/html";
import type { FieldError } from "../../http/errors.ts";

/** Who is signed in, and where the screens live. */
export interface AdminContext {
  admin: { email: string; firstName: string; lastName: string };
  csrf: string;
  /** The current section, for the navigation's aria-current. */
  section: string;
}

/** Field errors by path (`frameAncestors.1` also shows under `frameAncestors`). */
export type Errors = Record<string, string>;

/** Field errors from an error list. */
export function errorMap(errors: FieldError[] | undefined): Errors {
  const out: Errors = {};
  for (const e of errors ?? []) {
    out[e.path] ??= e.message;
    const top = e.path.split(".")[0];
    out[top] ??= e.path === top ? e.message : `${e.path}: ${e.message}`;
  }
  return out;
}

const SECTIONS: [string, string, string][] = [
  ["apps", "/admin/apps", "Authentications"],
  ["fields", "/admin/field-settings", "Field settings"],
  ["custom", "/admin/custom-fields", "Custom fields"],
  ["catalog", "/admin/catalog", "Guided paths"],
  ["users", "/admin/users", "Users"],
  ["teams", "/admin/teams", "Teams"],
  ["launches", "/admin/launches", "Launch log"],
  ["inspector", "/admin/inspector", "Inspector"],
];

const STYLE = `
*{box-sizing:border-box}body{margin:0;font-family:system-ui,sans-serif;color:#1f2933;display:flex;
min-height:100vh}nav.side{width:14rem;flex:none;background:#102a43;color:#fff;padding:1rem}
nav.side a{color:#d9e2ec;text-decoration:none;display:block;padding:.35rem .5rem;border-radius:4px}
nav.side a[aria-current=page]{background:#243b53;color:#fff;font-weight:bold}
nav.side ul{list-style:none;padding:0;margin:1rem 0}
main{flex:1;padding:1.2rem 2rem;max-width:70rem}h1{font-size:1.4rem;margin-top:0}h2{font-size:1.1rem}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
table{border-collapse:collapse;width:100%;margin:.5rem 0}td,th{border:1px solid #d9e2ec;
padding:.3rem .5rem;text-align:left;vertical-align:top}
.field{margin:.7rem 0}.field label{display:block;font-weight:600;margin-bottom:.2rem}
.field input[type=text],.field input[type=email],.field input[type=password],.field select,
.field textarea{font:inherit;padding:.35rem;width:100%;max-width:34rem;border:1px solid #9fb3c8;
border-radius:4px}.field textarea{font-family:monospace}
.field [aria-invalid=true]{border-color:#c53030;background:#fff5f5}
.field-error{color:#c53030;margin:.2rem 0 0;font-size:.9rem}.hint{color:#52606d;font-size:.85rem;
margin:.2rem 0 0}button,.button{font:inherit;padding:.35rem .9rem;border-radius:4px;
border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;cursor:pointer;text-decoration:none;
display:inline-block}button.secondary,.button.secondary{background:#fff;color:#1d4ed8}
button.danger{background:#c53030;border-color:#c53030}.row{display:flex;gap:.5rem;flex-wrap:wrap;
align-items:center}.notice{background:#f0fff4;border:1px solid #2f855a;padding:.6rem .8rem;
border-radius:4px}.alert{background:#fde8e8;border:1px solid #c53030;padding:.6rem .8rem;
border-radius:4px}pre{background:#f5f7fa;border:1px solid #d9e2ec;padding:.6rem;overflow:auto;
max-height:28rem}form.inline{display:inline}.secret{font-family:monospace;background:#fffbea;
padding:.1rem .3rem}
`;

/** A full admin page. */
export function adminPage(ctx: AdminContext | null, title: string, body: Child): string {
  const page = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title} · Portal Launcher admin</title>
        {ctx ? <meta name="csrf-token" content={ctx.csrf} /> : null}
        <style>{raw(STYLE)}</style>
      </head>
      <body>
        {ctx
          ? (
            <nav class="side" aria-label="Administration">
              <strong>Portal Launcher</strong>
              <ul>
                {SECTIONS.map(([id, href, label]) => (
                  <li key={id}>
                    <a href={href} aria-current={ctx.section === id ? "page" : undefined}>
                      {label}
                    </a>
                  </li>
                ))}
              </ul>
              <p>{ctx.admin.email}</p>
              <form method="post" action="/admin/logout">
                <Csrf ctx={ctx} />
                <button type="submit" class="secondary">Sign out</button>
              </form>
            </nav>
          )
          : null}
        <main>
          <h1>{title}</h1>
          {body}
        </main>
      </body>
    </html>
  );
  return "<!doctype html>" + page.toString();
}

/** The CSRF field of every admin form. */
export function Csrf(props: { ctx: AdminContext }) {
  return <input type="hidden" name="csrf" value={props.ctx.csrf} />;
}

/** A labelled input with its error (and hint) next to it. */
export function Field(props: {
  name: string;
  label: string;
  value?: string;
  errors: Errors;
  type?: string;
  hint?: string;
  required?: boolean;
  textarea?: boolean;
  rows?: number;
  options?: [string, string][];
  id?: string;
}) {
  const id = props.id ?? `f-${props.name}`;
  const error = props.errors[props.name];
  const described = [error ? `${id}-error` : "", props.hint ? `${id}-hint` : ""].filter(Boolean)
    .join(" ") || undefined;
  const common = {
    id,
    name: props.name,
    "aria-invalid": error ? "true" : undefined,
    "aria-describedby": described,
    required: props.required,
  };
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.options
        ? (
          <select {...common}>
            {props.options.map(([value, label]) => (
              <option key={value} value={value} selected={value === props.value}>{label}</option>
            ))}
          </select>
        )
        : props.textarea
        ? <textarea {...common} rows={props.rows ?? 4}>{props.value ?? ""}</textarea>
        : <input {...common} type={props.type ?? "text"} value={props.value ?? ""} />}
      {props.hint ? <p class="hint" id={`${id}-hint`}>{props.hint}</p> : null}
      {error ? <p class="field-error" id={`${id}-error`}>{error}</p> : null}
    </div>
  );
}

/** A checkbox with its label. */
export function Check(props: { name: string; label: string; checked: boolean; value?: string }) {
  const id = `c-${props.name}-${props.value ?? "on"}`;
  return (
    <div class="field">
      <input
        type="checkbox"
        id={id}
        name={props.name}
        value={props.value ?? "on"}
        checked={props.checked}
      />{" "}
      <label for={id} style="display:inline">{props.label}</label>
    </div>
  );
}

/** A message above a form: a notice, or an alert listing what was refused. */
export function Banner(props: { notice?: string | null; error?: string | null }) {
  return (
    <>
      {props.notice ? <p class="notice" role="status">{props.notice}</p> : null}
      {props.error ? <p class="alert" role="alert">{props.error}</p> : null}
    </>
  );
}
