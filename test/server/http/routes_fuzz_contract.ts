/**
 * The fuzzer's view of the OpenAPI document: its operations, and whether an answer is one the
 * document declares (status, content type, body schema through a JSON Schema 2020-12 validator
 * that is not the service's own zod schemas).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

// deno-lint-ignore no-explicit-any
type Doc = any;

/** One operation of the document. */
export interface Operation {
  method: string;
  /** The path as the document writes it, under /api/v1 (`/sessions/{id}`). */
  path: string;
  /** Its query parameter names. */
  query: string[];
  /** Declared answers: status (or `default`, `4XX`) to content type to compiled validator. */
  responses: Map<string, Map<string, ((body: unknown) => boolean) & { errors?: unknown }>>;
  /** Declared response headers by status. */
  headers: Map<string, string[]>;
}

/** Every operation of `doc`, with compiled response schemas. */
export function operationsOf(doc: Doc): Operation[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // deno-lint-ignore no-explicit-any
  (addFormats as any).default ? (addFormats as any).default(ajv) : (addFormats as any)(ajv);
  ajv.addSchema({ $id: "doc", components: doc.components ?? {} });
  const fixRefs = (schema: unknown): unknown =>
    JSON.parse(JSON.stringify(schema ?? {}).replaceAll('"#/components/', '"doc#/components/'));
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Doc>(doc.paths)) {
    for (const [method, op] of Object.entries<Doc>(item)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const responses = new Map();
      const headers = new Map<string, string[]>();
      for (const [status, response] of Object.entries<Doc>(op.responses ?? {})) {
        const resolved = response.$ref
          ? doc.components.responses[response.$ref.split("/").pop()]
          : response;
        const byType = new Map();
        for (const [type, media] of Object.entries<Doc>(resolved.content ?? {})) {
          byType.set(type, ajv.compile(fixRefs(media.schema) as object));
        }
        responses.set(status, byType);
        headers.set(status, Object.keys(resolved.headers ?? {}));
      }
      const query = [...(item.parameters ?? []), ...(op.parameters ?? [])]
        .map((p: Doc) => p.$ref ? doc.components.parameters[p.$ref.split("/").pop()] : p)
        .filter((p: Doc) => p.in === "query").map((p: Doc) => p.name);
      ops.push({ method, path, query, responses, headers });
    }
  }
  return ops;
}

/** Why an answer is outside the document, or null when the document declares it. */
export function undeclaredAnswer(
  op: Operation,
  status: number,
  headers: Headers,
  text: string,
): string | null {
  const key = [String(status), `${String(status)[0]}XX`, "default"]
    .find((k) => op.responses.has(k));
  if (!key) return `status ${status} is not declared for ${op.method} ${op.path}`;
  const byType = op.responses.get(key)!;
  if (!byType.size) return text === "" ? null : `${status} declares no body, got one`;
  const type = (headers.get("Content-Type") ?? "").split(";")[0].trim();
  const validate = byType.get(type);
  if (!validate) return `${status} answered ${type}, declared ${[...byType.keys()].join(", ")}`;
  if (type !== "application/json") return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${status} body is not JSON`;
  }
  if (!validate(body)) {
    return `${status} body does not match its schema: ${JSON.stringify(validate.errors)}`;
  }
  for (const name of op.headers.get(key) ?? []) {
    if (!headers.has(name)) return `${status} lacks the declared header ${name}`;
  }
  return null;
}
