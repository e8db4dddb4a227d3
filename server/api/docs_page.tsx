/**
 * The API reference page at /api/v1/docs, rendered on the server from the OpenAPI document: every
 * operation with its parameters, body, responses and scopes, and a "Try it" form per operation
 * run by a small script the service serves itself (works with no internet).
 */
import { assetPath } from "../assets/static_files.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** Resolves a local `$ref` (#/components/schemas/Name). */
function deref(doc: Json, schema: Json): Json {
  let s = schema;
  for (let i = 0; s?.$ref && i < 20; i++) {
    s = s.$ref.split("/").slice(1).reduce((o: Json, k: string) => o?.[k], doc);
  }
  return s ?? {};
}

/** An example value for a schema: its example, else one built from its parts. */
export function exampleOf(doc: Json, schema: Json, depth = 0): unknown {
  const s = deref(doc, schema);
  if (s.example !== undefined) return s.example;
  if (s.examples?.length) return s.examples[0];
  if (s.default !== undefined) return s.default;
  if (depth > 6) return null;
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  const variants = s.anyOf ?? s.oneOf;
  if (variants) return exampleOf(doc, variants.find((v: Json) => v.type !== "null") ?? {}, depth);
  if (s.allOf) return exampleOf(doc, s.allOf[0], depth);
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;
  if (type === "object" || s.properties) {
    const out: Record<string, unknown> = {};
    for (const [name, prop] of Object.entries(s.properties ?? {})) {
      out[name] = exampleOf(doc, prop, depth + 1);
    }
    return out;
  }
  if (type === "array") return [exampleOf(doc, s.items ?? {}, depth + 1)];
  if (type === "integer" || type === "number") return 0;
  if (type === "boolean") return true;
  if (type === "string") return s.format === "date-time" ? "2026-11-22T09:30:00Z" : "string";
  return null;
}

/** A short type label for a schema (`Session`, `string`, `array of Customer`). */
function typeLabel(doc: Json, schema: Json): string {
  if (!schema) return "";
  if (schema.$ref) return schema.$ref.split("/").pop();
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return variants.map((v: Json) => typeLabel(doc, v)).join(" | ");
  if (schema.enum) return schema.enum.map((v: unknown) => JSON.stringify(v)).join(" | ");
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : schema.type ?? "any";
  if (type === "array") return `array of ${typeLabel(doc, schema.items)}`;
  return type;
}

function anchor(method: string, path: string): string {
  return `${method}-${path}`.replace(/[^A-Za-z0-9]+/g, "-").replace(/-+$/, "");
}

function SchemaTable(props: { doc: Json; schema: Json }) {
  const s = deref(props.doc, props.schema);
  const props_ = Object.entries(s.properties ?? {}) as [string, Json][];
  if (!props_.length) return <code>{typeLabel(props.doc, props.schema)}</code>;
  const required: string[] = s.required ?? [];
  return (
    <div class="table-wrap" tabindex={0}>
      <table>
        <thead>
          <tr>
            <th>Field</th>
            <th>Type</th>
            <th>Notes</th>
          </tr>
        </thead>
        <tbody>
          {props_.map(([name, p]) => (
            <tr>
              <td>
                <code>{name}</code>
                {required.includes(name) ? " *" : ""}
              </td>
              <td>{typeLabel(props.doc, p)}</td>
              <td>{deref(props.doc, p).description ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Operation(props: { doc: Json; method: string; path: string; op: Json }) {
  const { doc, method, path, op } = props;
  const params: Json[] = op.parameters ?? [];
  const content = op.requestBody?.content ?? {};
  const bodyType = Object.keys(content)[0];
  const bodySchema = bodyType ? content[bodyType].schema : null;
  const example = bodySchema ? exampleOf(doc, bodySchema) : null;
  const bodyText = bodyType === "application/x-www-form-urlencoded"
    ? new URLSearchParams(
      Object.entries((example ?? {}) as Record<string, unknown>)
        .filter(([, v]) => v !== "string")
        .map(([k, v]) => [k, String(v)]),
    ).toString()
    : example === null
    ? ""
    : JSON.stringify(example, null, 2);
  const scopes: string[] = (op.security ?? []).flatMap((r: Json) => r.oauth2 ?? []);
  return (
    <section class="op" id={anchor(method, path)}>
      <h3>
        <span class={`m m-${method}`}>{method.toUpperCase()}</span> <code>{path}</code>
      </h3>
      <p>{op.summary}</p>
      {op.description ? <p class="desc">{op.description}</p> : null}
      {op.operationId
        ? (
          <p class="desc">
            operationId <code>{op.operationId}</code>
          </p>
        )
        : null}
      {scopes.length
        ? (
          <p>
            Bearer token with scope <code>{scopes.join(" ")}</code>
          </p>
        )
        : null}
      {params.length
        ? (
          <div class="table-wrap" tabindex={0}>
            <table>
              <thead>
                <tr>
                  <th>Parameter</th>
                  <th>In</th>
                  <th>Type</th>
                  <th>Notes</th>
                </tr>
              </thead>
              <tbody>
                {params.map((p) => (
                  <tr>
                    <td>
                      <code>{p.name}</code>
                      {p.required ? " *" : ""}
                    </td>
                    <td>{p.in}</td>
                    <td>{typeLabel(doc, p.schema)}</td>
                    <td>{p.description ?? p.schema?.description ?? ""}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
        : null}
      {bodySchema
        ? (
          <details>
            <summary>
              Body (<code>{bodyType}</code>)
            </summary>
            <SchemaTable doc={doc} schema={bodySchema} />
          </details>
        )
        : null}
      <details>
        <summary>Responses</summary>
        <ul>
          {Object.entries(op.responses ?? {}).map(([status, r]: [string, Json]) => {
            const schema = r.content?.["application/json"]?.schema;
            const headers = Object.keys(r.headers ?? {}).filter((h) => h !== "X-Request-Id");
            return (
              <li>
                <b>{status}</b> {r.description}
                {schema
                  ? (
                    <>
                      : <code>{typeLabel(doc, schema)}</code>
                    </>
                  )
                  : null}
                {headers.length
                  ? (
                    <>
                      {" "}(headers: {headers.map((h, i) => (
                        <>
                          {i ? ", " : ""}
                          <code>{h}</code>
                        </>
                      ))})
                    </>
                  )
                  : null}
              </li>
            );
          })}
        </ul>
      </details>
      <form
        class="try"
        data-method={method.toUpperCase()}
        data-path={path}
        data-body-type={bodyType ?? ""}
        data-auth={scopes.length ? "bearer" : "client"}
      >
        <fieldset>
          <legend>Try it</legend>
          {params.map((p) => (
            <label>
              {p.name} ({p.in})
              <input
                name={p.name}
                data-in={p.in}
                required={p.required}
                value={p.in !== "header" && p.schema?.example !== undefined
                  ? String(p.schema.example)
                  : ""}
              />
            </label>
          ))}
          {bodyType
            ? (
              <label>
                Body
                <textarea name="__body" rows={Math.min(12, bodyText.split("\n").length + 1)}>
                  {bodyText}
                </textarea>
              </label>
            )
            : null}
          <button type="submit">Send</button>
          <output aria-live="polite"></output>
        </fieldset>
      </form>
    </section>
  );
}

/** The reference page for `doc`. */
export function docsPage(doc: Json): string {
  const ops: { tag: string; method: string; path: string; op: Json }[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {}) as [string, Json][]) {
    for (const method of METHODS) {
      if (item[method]) {
        ops.push({ tag: item[method].tags?.[0] ?? "Other", method, path, op: item[method] });
      }
    }
  }
  const tags = [...new Set(ops.map((o) => o.tag))];
  const server = doc.servers?.[0]?.url ?? "";
  const page = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{doc.info.title} reference</title>
        <link rel="stylesheet" href={assetPath("base.css")} />
        <link rel="stylesheet" href={assetPath("api-docs.css")} />
      </head>
      <body data-server={server}>
        <nav aria-label="Operations">
          <h1>{doc.info.title}</h1>
          <p>
            v{doc.info.version} · <a href="openapi.json">openapi.json</a>
          </p>
          {tags.map((tag) => (
            <>
              <h2>{tag}</h2>
              <ul>
                {ops.filter((o) => o.tag === tag).map((o) => (
                  <li>
                    <a href={`#${anchor(o.method, o.path)}`}>
                      <span class={`m m-${o.method}`}>{o.method.toUpperCase()}</span> {o.path}
                    </a>
                  </li>
                ))}
              </ul>
            </>
          ))}
        </nav>
        <main>
          <p class="desc">{doc.info.description}</p>
          <p>
            Base URL: <code>{server}</code>
          </p>
          <form id="auth" class="auth">
            <fieldset>
              <legend>Credentials for "Try it"</legend>
              <label>
                client_id <input name="client_id" autocomplete="username" />
              </label>
              <label>
                client_secret <input name="client_secret" type="password" autocomplete="off" />
              </label>
              <button type="submit">Get a token</button>
              <label>
                Bearer token <input name="token" autocomplete="off" />
              </label>
              <output aria-live="polite"></output>
            </fieldset>
          </form>
          {tags.map((tag) => (
            <>
              <h2>{tag}</h2>
              {ops.filter((o) => o.tag === tag).map((o) => (
                <Operation doc={doc} method={o.method} path={o.path} op={o.op} />
              ))}
            </>
          ))}
        </main>
        <script src={assetPath("api-docs.js")} defer></script>
      </body>
    </html>
  );
  return "<!doctype html>" + page.toString();
}
