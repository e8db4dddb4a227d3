/**
 * The fuzzer's view of the OpenAPI document: its operations and their query parameters. Answers
 * are checked by the contract test's validator (test/server/api/contract_validator.ts: a JSON
 * Schema 2020-12 validator, not the service's own zod schemas).
 */
import type { Json } from "../../helpers/payload.ts";

/** One operation of the document. */
export interface Operation {
  method: string;
  /** The path as the document writes it, under /api/v1 (`/sessions/{id}`). */
  path: string;
  /** Its query parameter names. */
  query: string[];
}

/** Every operation of `doc`. */
export function operationsOf(doc: Json): Operation[] {
  const ops: Operation[] = [];
  const resolve = (p: Json) => p.$ref ? doc.components.parameters[p.$ref.split("/").pop()] : p;
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (!["get", "post", "put", "patch", "delete"].includes(method)) continue;
      const query = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve)
        .filter((p: Json) => p.in === "query").map((p: Json) => p.name);
      ops.push({ method, path, query });
    }
  }
  return ops;
}
