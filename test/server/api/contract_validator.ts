/**
 * Checks real responses against the service's OpenAPI 3.1 document with a JSON Schema 2020-12
 * validator (ajv), not the zod schemas the document was generated from: the status must be
 * declared for the operation, the declared headers that are required must be there, the body must
 * have a declared content type and validate against its schema. Schemas are checked closed: every
 * `$ref` is inlined, `allOf` of objects merged, and an object that does not say otherwise allows
 * only the properties it declares (a client generated from the document would drop the others).
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import formats from "ajv-formats";
import type { Json } from "../../helpers/payload.ts";

const addFormats = formats as unknown as typeof formats.default;

/** Keywords whose values are data, not schemas: never rewritten. */
const DATA_KEYWORDS = new Set(["example", "examples", "default", "const", "enum"]);

/** The value at a local JSON pointer (`#/components/schemas/Session`) of `doc`. */
export function pointer(doc: Json, ref: string): Json {
  if (!ref.startsWith("#/")) throw new Error(`not a local $ref: ${ref}`);
  const found = ref.slice(2).split("/")
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce((node: Json, key: string) => node?.[key], doc);
  if (found === undefined) throw new Error(`dangling $ref: ${ref}`);
  return found;
}

/** `schema` with its `$ref`s inlined and each `allOf` of objects merged into one object. */
function inline(doc: Json, schema: Json, depth = 0): Json {
  if (depth > 50) throw new Error("schema nests too deep (a recursive $ref?)");
  if (Array.isArray(schema)) return schema.map((s) => inline(doc, s, depth + 1));
  if (!schema || typeof schema !== "object") return schema;
  if (typeof schema.$ref === "string") {
    const { $ref, ...siblings } = schema;
    return inline(doc, { ...pointer(doc, $ref), ...siblings }, depth + 1);
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = DATA_KEYWORDS.has(key) ? value : inline(doc, value, depth + 1);
  }
  if (Array.isArray(out.allOf) && out.allOf.every(isObjectSchema)) {
    const { allOf, ...rest } = out;
    const merged: Json = { ...rest, type: "object", properties: {}, required: [] };
    for (const part of allOf as Json[]) {
      Object.assign(merged.properties, part.properties ?? {});
      merged.required.push(...(part.required ?? []));
      if (part.additionalProperties !== undefined) {
        merged.additionalProperties = part.additionalProperties;
      }
    }
    return merged;
  }
  return out;
}

function isObjectSchema(s: Json): boolean {
  return !!s && typeof s === "object" && (s.type === "object" || !!s.properties);
}

/** `schema` (inlined) with every object that lists properties closed to undeclared ones. */
function close(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(close);
  if (!schema || typeof schema !== "object") return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = DATA_KEYWORDS.has(key) ? value : close(value);
  }
  if (
    out.properties && out.additionalProperties === undefined &&
    out.unevaluatedProperties === undefined && out.patternProperties === undefined
  ) out.additionalProperties = false;
  return out;
}

/** The closed, self-contained JSON Schema of `schema` (which may hold `$ref`s into `doc`). */
export function closedSchema(doc: Json, schema: Json): Json {
  return close(inline(doc, schema));
}

/** What one response of one operation was found to break (empty: it keeps the contract). */
export type Problems = string[];

/** Validates responses against `doc`. */
export class ContractValidator {
  #ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
  #compiled = new Map<string, ValidateFunction>();

  constructor(readonly doc: Json) {
    addFormats(this.#ajv);
    // The OpenAPI 3.1 dialect's own keywords: annotations for a validator.
    this.#ajv.addVocabulary(["example", "discriminator", "xml", "externalDocs"]);
  }

  /** The operation `method` `path` (a template such as /sessions/{id}) of the document. */
  operation(method: string, path: string): Json {
    return this.doc.paths?.[path]?.[method.toLowerCase()];
  }

  /** The problems of `res` (whose body is `text`) as an answer of `method` `path`. */
  check(method: string, path: string, res: Response, text: string): Problems {
    const op = this.operation(method, path);
    if (!op) return [`${method} ${path} is not in the document`];
    const status = String(res.status);
    const declared = op.responses?.[status] ?? op.responses?.[`${status[0]}XX`] ??
      op.responses?.default;
    if (!declared) {
      return [`status ${status} is not declared (declared: ${Object.keys(op.responses ?? {})})`];
    }
    const response = declared.$ref ? pointer(this.doc, declared.$ref) : declared;
    const problems: Problems = [];
    for (const [name, h] of Object.entries(response.headers ?? {}) as [string, Json][]) {
      const header = h.$ref ? pointer(this.doc, h.$ref) : h;
      const value = res.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`${status}: header ${name} is missing`);
        continue;
      }
      if (header.schema) {
        problems.push(...this.#validate(`header ${name}`, header.schema, value, status));
      }
    }
    const content: Record<string, Json> = response.content ?? {};
    const types = Object.keys(content);
    if (!types.length) {
      if (text !== "") problems.push(`${status}: declares no content but has a body`);
      return problems;
    }
    const type = res.headers.get("Content-Type")?.split(";")[0].trim().toLowerCase() ?? "";
    const media = content[type];
    if (!media) {
      problems.push(`${status}: content type "${type}" is not declared (declared: ${types})`);
      return problems;
    }
    let body: unknown = text;
    if (/[/+]json$/.test(type)) {
      try {
        body = JSON.parse(text);
      } catch {
        problems.push(`${status}: the ${type} body is not JSON: ${text.slice(0, 80)}`);
        return problems;
      }
    }
    if (media.schema) problems.push(...this.#validate(type, media.schema, body, status));
    return problems;
  }

  #validate(what: string, schema: Json, value: unknown, status: string): Problems {
    const key = JSON.stringify(schema);
    let validate = this.#compiled.get(key);
    if (!validate) {
      validate = this.#ajv.compile(closedSchema(this.doc, schema));
      this.#compiled.set(key, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) =>
      `${status} ${what}: ${e.instancePath || "(root)"} ${e.message}` +
      (e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : "")
    );
  }
}
