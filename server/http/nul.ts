/**
 * U+0000 (NUL) in request input, one rule for every input path: refused with 400 naming the field
 * (`errors[].code` `nul_character`), before anything reaches the database. PostgreSQL text cannot
 * hold U+0000, and storing something else than what the caller sent would hide the fault. Half of
 * a UTF-16 surrogate pair, which only JSON can spell (`"\ud800"`), is refused the same way
 * (`unpaired_surrogate`): PostgreSQL's json refuses it, and text columns would keep U+FFFD.
 *
 * `refuseNul` checks what every route can read: the URL path, query parameters, and bodies sent as
 * JSON, `application/x-www-form-urlencoded` or `multipart/form-data` (text fields; file contents
 * are data, not text). The launch checks its decoded payload with `unstorableText` too (a
 * signed_request carries its JSON in Base64, where neither shows). OAuth endpoints answer RFC 6749's
 * `{"error": "invalid_request", "error_description": …}`, every other route the service's
 * `{"code": "invalid_request", "message", "errors": [{path, code, message}]}`.
 */
import type { Context, MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { AppError, type FieldError, OAuthError } from "./errors.ts";
import type { AppEnv } from "./env.ts";
import { mediaType } from "./media_type.ts";

/** The field error code of a value that holds U+0000. */
export const NUL_CODE = "nul_character";

/**
 * The field error code of a value holding half a UTF-16 surrogate pair (`"\ud800"` in JSON, or
 * text cut inside an emoji): not text, and PostgreSQL's json cannot hold it either.
 */
export const SURROGATE_CODE = "unpaired_surrogate";

/**
 * The field error code of a key named `__proto__`: a JavaScript object takes it for its prototype,
 * so every schema would drop it without a word (a custom field of that name would vanish).
 */
export const PROTO_KEY_CODE = "reserved_key";

/** What makes a string or a key unstorable. */
type TextProblem = typeof NUL_CODE | typeof SURROGATE_CODE | typeof PROTO_KEY_CODE;

function problemOf(text: string): TextProblem | null {
  if (text.includes("\0")) return NUL_CODE;
  return text.isWellFormed() ? null : SURROGATE_CODE;
}

/** Where a decoded input holds text that cannot be stored, and what is wrong with it. */
export interface UnstorableText {
  /** Dotted path of the value or key; array items by their index; `(root)` for the input. */
  path: string;
  code: TextProblem;
}

/**
 * The first string (value or object key) in `value` that holds U+0000 or an unpaired surrogate,
 * or null. A clean value (nearly every one) is walked without building anything; the keys are
 * collected on the way back from a problem. Inputs are decoded JSON, whose objects have no
 * inherited enumerable keys, so `for…in` visits what `Object.keys` would.
 */
export function unstorableText(value: unknown): UnstorableText | null {
  const found = problemKeys(value);
  return found && { path: found.keys.reverse().join(".") || "(root)", code: found.code };
}

function problemKeys(value: unknown): { keys: string[]; code: TextProblem } | null {
  if (typeof value === "string") {
    const code = problemOf(value);
    return code && { keys: [], code };
  }
  if (typeof value !== "object" || value === null) return null;
  for (const key in value) {
    const code = key === "__proto__" ? PROTO_KEY_CODE : problemOf(key);
    if (code) return { keys: [key], code };
    const found = problemKeys((value as Record<string, unknown>)[key]);
    if (found) {
      found.keys.push(key);
      return found;
    }
  }
  return null;
}

/** The field error of a NUL at `path`: what was wrong and what to do. */
export function nulFieldError(path: string): FieldError {
  return textFieldError({ path, code: NUL_CODE });
}

/** Each problem: what a request's message says of the field, and its field error's message. */
const PROBLEMS: Record<TextProblem, { holds: string; message: string }> = {
  [NUL_CODE]: {
    holds: "holds U+0000",
    message: "contains U+0000 (NUL), which cannot be stored: remove the character and send again",
  },
  [SURROGATE_CODE]: {
    holds: "holds half of a surrogate pair",
    message: "contains half of a UTF-16 surrogate pair (text cut inside a character such as an " +
      "emoji), which is not text: send the whole character, or remove the half",
  },
  [PROTO_KEY_CODE]: {
    holds: "is a reserved key",
    message: "a key named __proto__ cannot be kept (JavaScript objects take it for their " +
      "prototype): rename it",
  },
};

/** The field error of unstorable text: what was wrong and what to do. */
export function textFieldError({ path, code }: UnstorableText): FieldError {
  return { path, code, message: PROBLEMS[code].message };
}

/** A NUL in the parameter or field `name` (its own NULs shown as U+FFFD). */
function nulAt(name: string): UnstorableText {
  return { path: name.replaceAll("\0", "\uFFFD"), code: NUL_CODE };
}

/** A request body that could not be read: its reason, for a 400. */
class UnreadableBody extends Error {}

/** Why a body that ended before it was whole is refused. */
const BODY_ENDED_EARLY =
  "The request body could not be read: the connection ended before the whole body arrived";

/**
 * What `read` reads of the request body. A body that ends early (the client closed the connection,
 * or sent fewer bytes than its Content-Length) is the client's fault, a 400 (UnreadableBody), not
 * a 500; a refusal raised while it streams in (over the body limit: 413) is passed on as it is.
 */
async function readBody<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof AppError || err instanceof HTTPException) throw err;
    throw new UnreadableBody(BODY_ENDED_EARLY);
  }
}

/**
 * The 400 of a body that could not be read, as `path` answers errors: RFC 6749's shape under
 * `oauthPrefix`, the service's elsewhere. Also what the body limit answers when a body sent
 * without a length breaks off while it counts it (body_limit.ts).
 */
export function unreadableBody(
  path: string,
  oauthPrefix: string,
  message = BODY_ENDED_EARLY,
): AppError {
  return path.startsWith(oauthPrefix)
    ? new OAuthError(400, "invalid_request", message)
    : new AppError(400, "invalid_request", message);
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A JSON body as text, refused (UnreadableBody) unless it is UTF-8 (RFC 8259 §8.1): decoded
 * leniently, bytes that are not would become U+FFFD and be stored in place of what was sent.
 */
async function jsonBodyText(c: Context): Promise<string> {
  const bytes = await readBody(() => c.req.arrayBuffer());
  try {
    return utf8.decode(bytes);
  } catch {
    throw new UnreadableBody(
      "The JSON body is not UTF-8 text: encode it as UTF-8 (RFC 8259), as JSON.stringify's " +
        "output sent by fetch is",
    );
  }
}

/**
 * Where in a request the first NUL is: `path` (the URL path), a parameter name, or a body path.
 * Each input is first scanned as text for the only spellings a NUL can have there (a raw U+0000,
 * `%00` in the URL and form bodies, `\u0000` in JSON); only a request that has one is parsed to
 * name the field, so a clean request costs one scan of each input and no parsing. Throws
 * UnreadableBody for a body that cannot be read or, sent as multipart/form-data, parsed (Hono
 * keeps a parse's failure, so every later reader of the form would fail with it too).
 */
async function findNul(c: Context<AppEnv>): Promise<UnstorableText | null> {
  const url = c.req.url;
  if (url.includes("\0") || url.includes("%00")) {
    const parsed = new URL(url);
    if (c.req.path.includes("\0") || parsed.pathname.includes("%00")) return nulAt("(path)");
    for (const [name, value] of parsed.searchParams) {
      if (name.includes("\0") || value.includes("\0")) return nulAt(name);
    }
  }
  if (!c.req.raw.body) return null;
  const type = mediaType(c);
  if (type === "application/json" || type.endsWith("+json")) {
    const text = await jsonBodyText(c);
    // Kept for the error handler: a route's parser says only "Malformed JSON" (errors.ts).
    c.set("jsonBody", text);
    // Only a raw NUL, a \u escape (how JSON spells a control character or half a pair: decoded
    // UTF-8 holds neither) or the key spelled out can be a problem: nothing else is parsed here.
    if (!text.includes("\0") && !text.includes("\\u") && !text.includes("__proto__")) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return null; // not JSON: the route answers that
    }
    return unstorableText(parsed);
  }
  if (type === "application/x-www-form-urlencoded") {
    const text = await readBody(() => c.req.text());
    if (!text.includes("\0") && !text.includes("%00")) return null;
    for (const [name, value] of new URLSearchParams(text)) {
      if (name.includes("\0") || value.includes("\0")) return nulAt(name);
    }
    return null;
  }
  if (type === "multipart/form-data") {
    // The bytes first: a body cut short is that, not a form that does not parse.
    await readBody(() => c.req.arrayBuffer());
    let form: FormData;
    try {
      form = await c.req.formData();
    } catch (err) {
      if (err instanceof AppError || err instanceof HTTPException) throw err;
      throw new UnreadableBody(
        "The multipart/form-data body could not be parsed: send it with the boundary its " +
          "Content-Type names (as a browser's form does), or send application/x-www-form-urlencoded",
      );
    }
    for (const [name, value] of form) {
      if (name.includes("\0") || (typeof value === "string" && value.includes("\0"))) {
        return nulAt(name);
      }
    }
  }
  return null;
}

/**
 * The middleware: refuses a request whose input holds U+0000, or (in a JSON body) half of a
 * surrogate pair. Paths under `oauthPrefix` get the OAuth error format.
 */
export function refuseNul(oauthPrefix: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let at: UnstorableText | null;
    try {
      at = await findNul(c);
    } catch (err) {
      if (!(err instanceof UnreadableBody)) throw err;
      throw unreadableBody(c.req.path, oauthPrefix, err.message);
    }
    if (at === null) return next();
    const error = textFieldError(at);
    if (c.req.path.startsWith(oauthPrefix)) {
      throw new OAuthError(400, "invalid_request", `${at.path} ${error.message}`);
    }
    const { holds } = PROBLEMS[at.code];
    throw new AppError(400, "invalid_request", `Invalid request: ${at.path} ${holds}`, [error]);
  };
}
