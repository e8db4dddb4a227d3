/** The admin screens' page frame and form pieces: one layout, errors next to their fields. */
import type { Child } from "hono/jsx";
import type { JSX } from "hono/jsx/jsx-runtime";
import { assetPath } from "../../assets/static_files.ts";
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
  ["apps", "/admin/apps", "Apps"],
  ["organizations", "/admin/organizations", "Organizations"],
  ["field-settings", "/admin/field-settings", "Field settings"],
  ["custom-fields", "/admin/custom-fields", "Custom fields"],
  ["guided-paths", "/admin/guided-paths", "Guided paths"],
  ["users", "/admin/users", "Users"],
  ["teams", "/admin/teams", "Teams"],
  ["sessions", "/admin/sessions", "Sessions"],
  ["launch-log", "/admin/launches", "Launch log"],
  ["inspector", "/admin/inspector", "Inspector"],
];

/** A full admin page; `script` names a static file of server/assets/files/ it runs. */
export function adminPage(
  ctx: AdminContext | null,
  title: string,
  body: Child,
  script?: string,
): string {
  const page = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title} · Portal Launcher admin</title>
        {ctx ? <meta name="csrf-token" content={ctx.csrf} /> : null}
        <link rel="icon" href={assetPath("favicon.svg")} type="image/svg+xml" />
        <link rel="stylesheet" href={assetPath("base.css")} />
        <link rel="stylesheet" href={assetPath("admin.css")} />
        <script src={assetPath("local-time.js")} defer></script>
        {script ? <script src={assetPath(script)} defer></script> : null}
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
export function Csrf(props: { ctx: AdminContext }): JSX.Element {
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
}): JSX.Element {
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
export function Check(
  props: { name: string; label: string; checked: boolean; value?: string },
): JSX.Element {
  const id = `c-${props.name}-${props.value ?? "on"}`;
  return (
    <div class="field check">
      <input
        type="checkbox"
        id={id}
        name={props.name}
        value={props.value ?? "on"}
        checked={props.checked}
      />{" "}
      <label for={id}>{props.label}</label>
    </div>
  );
}

/** A group of checkboxes for one multi-valued field, with its legend and its error. */
export function Checks(props: {
  name: string;
  legend: string;
  options: string[];
  chosen: string[];
  errors: Errors;
}): JSX.Element {
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      {props.options.map((option) => (
        <Check
          key={option}
          name={props.name}
          value={option}
          label={option}
          checked={props.chosen.includes(option)}
        />
      ))}
      {props.errors[props.name] ? <p class="field-error">{props.errors[props.name]}</p> : null}
    </fieldset>
  );
}

/** A table's header row: one column heading per name. */
export function ColumnHeads(props: { columns: string[] }): JSX.Element {
  return (
    <thead>
      <tr>
        {props.columns.map((name, i) => <th key={i} scope="col">{name}</th>)}
      </tr>
    </thead>
  );
}

/** A message above a form: a notice, or an alert listing what was refused. */
export function Banner(props: { notice?: string | null; error?: string | null }): JSX.Element {
  return (
    <>
      {props.notice ? <p class="notice" role="status">{props.notice}</p> : null}
      {props.error ? <p class="alert" role="alert">{props.error}</p> : null}
    </>
  );
}
