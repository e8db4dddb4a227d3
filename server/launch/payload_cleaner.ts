/**
 * What real CRM payloads need before validation: blank values mean "not given", and keys the
 * contract does not know are dropped and reported. The known keys are read from the payload's own
 * zod schema, so no key is listed twice.
 */
import type { z } from "zod";
import { PAYLOAD_LIMITS } from "./contract.ts";

/** A note about a launch that did not stop it: a repaired, ignored or conflicting input. */
export interface LaunchWarning {
  path: string;
  code: string;
  message: string;
  [detail: string]: unknown;
}

/** The structure the cleaner walks: an object's keys, an array's items, a free record, a leaf. */
type Shape =
  & (
    | { kind: "object"; keys: Map<string, Shape> }
    | { kind: "array"; item: Shape }
    | { kind: "record" }
    | { kind: "leaf" }
  )
  & { optional?: boolean };

// deno-lint-ignore no-explicit-any
type Def = any;

/** The shape a zod schema accepts, seen through optional, pipe, preprocess and transforms. */
function shapeOf(schema: z.ZodType): Shape {
  const def: Def = (schema as { _zod: { def: Def } })._zod.def;
  switch (def.type) {
    case "optional":
      return { ...shapeOf(def.innerType), optional: true };
    case "nullable":
    case "default":
    case "prefault":
      return shapeOf(def.innerType);
    case "pipe": {
      // z.preprocess(fn, s) is pipe(transform, s); .transform() on s is pipe(s, transform).
      const preprocessed = def.in._zod.def.type === "transform";
      return shapeOf(preprocessed ? def.out : def.in);
    }
    case "object":
      return {
        kind: "object",
        keys: new Map(Object.entries(def.shape).map(([k, v]) => [k, shapeOf(v as z.ZodType)])),
      };
    case "array":
      return { kind: "array", item: shapeOf(def.element) };
    case "record":
      return { kind: "record" };
    default:
      return { kind: "leaf" };
  }
}

const MAX_WARNINGS = 50;

/** True for the values that mean "not given": null, and text that is empty or only spaces. */
function isBlank(value: unknown): boolean {
  return value === null || (typeof value === "string" && value.trim() === "");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True for an empty object or array: "not given" where the field is optional. */
function isEmpty(value: unknown): boolean {
  return Array.isArray(value)
    ? value.length === 0
    : isPlainObject(value) && !Object.keys(value).length;
}

/**
 * A row of a template left unfilled: an object in an array where a required field was sent blank
 * (`{"teamId": "T1", "teamName": ""}`, `{"search_type": "tag", "search_values": []}`). It is
 * dropped like a blank value; a required field that is missing altogether is still an error.
 */
function isBlankRow(item: unknown, shape: Shape): boolean {
  if (shape.kind !== "object" || !isPlainObject(item)) return false;
  for (const [key, field] of shape.keys) {
    if (field.optional || !(key in item)) continue;
    const value = item[key];
    if (isBlank(value) || isEmpty(value)) return true;
    if (Array.isArray(value) && value.every(isBlank)) return true;
  }
  return false;
}

/**
 * The cleaned value, or undefined for "not given". Empty objects and arrays are "not given" only
 * where the field is optional: a required object stays, so that its own required fields are named.
 * The value is at `key` (null: the payload itself) under the path `parent`; its own dotted path
 * is built only for a value that holds others, whose warnings may need it (most are leaves).
 */
function clean(
  value: unknown,
  shape: Shape,
  parent: string,
  key: string | null,
  warnings: LaunchWarning[],
): unknown {
  if (isBlank(value)) return undefined;
  const cleaned = shape.kind === "leaf" || shape.kind === "record"
    ? value
    : cleanInside(value, shape, key === null ? parent : childPath(parent, key), warnings);
  return shape.optional && isEmpty(cleaned) ? undefined : cleaned;
}

/** The dotted path of `key` under `parent` ("" for the payload itself). */
function childPath(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}

function cleanInside(
  value: unknown,
  shape: Extract<Shape, { kind: "array" | "object" }>,
  path: string,
  warnings: LaunchWarning[],
): unknown {
  if (shape.kind === "array") {
    if (!Array.isArray(value)) return value;
    return value.filter((item) => !isBlankRow(item, shape.item))
      .map((item, i) => clean(item, shape.item, path, String(i), warnings))
      .filter((item) => item !== undefined && !(isPlainObject(item) && isEmpty(item)));
  }
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const known = shape.keys.get(key);
    if (!known) {
      if (warnings.length < MAX_WARNINGS) {
        warnings.push({
          path: childPath(path, key),
          code: "ignored_field",
          message: "not part of the launch contract; ignored",
        });
      }
      continue;
    }
    const cleaned = clean(value[key], known, path, key, warnings);
    if (cleaned !== undefined) out[key] = cleaned;
  }
  return out;
}

/**
 * A cleaner for `schema`: returns the payload without blanks (`""`, spaces, `null`, `{}`, `[]`
 * mean "not given") and without unknown keys, each of which becomes an `ignored_field` warning.
 */
export function payloadCleaner(
  schema: z.ZodType,
): (raw: Record<string, unknown>) => { value: unknown; warnings: LaunchWarning[] } {
  const shape = shapeOf(schema);
  return (raw) => {
    const warnings: LaunchWarning[] = [];
    const value = clean(raw, shape, "", null, warnings);
    return { value, warnings };
  };
}

/**
 * The nesting depth of a JSON text (arrays and objects), counted without parsing it, so a hostile
 * payload cannot exhaust the parser's stack. Stops counting past `PAYLOAD_LIMITS.depth`.
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) {
      if (++depth > max) max = depth;
      if (max > PAYLOAD_LIMITS.depth) return max;
    } else if (ch === 0x7d || ch === 0x5d) depth--;
  }
  return max;
}
