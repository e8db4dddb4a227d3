/**
 * The launch contract: every name and field rule that the service, the admin screens and API, the
 * JSON template, the signer package and the <portal-launcher> element share. It imports nothing,
 * so browsers and the signer can bundle it without pulling server code or zod.
 *
 * @example
 * ```ts
 * import { ALGORITHM, FIELD_RULES, launchUrl } from "./contract.ts";
 * launchUrl("https://portal.example.com/portal", "crm");
 * // "https://portal.example.com/portal/api/auth/app/crm"
 * FIELD_RULES.email.pattern.test("grace@example.org"); // true
 * ALGORITHM; // "HMACSHA256"
 * ```
 */

/** The only signing algorithm (the payload's `algorithm` field must equal it exactly). */
export const ALGORITHM = "HMACSHA256";

/** The form field that carries `<signature>.<encoded_payload>`. */
export const SIGNED_REQUEST_FIELD = "signed_request";

/** Route pattern of the launch endpoint under the portal prefix (Hono syntax). */
export const LAUNCH_ROUTE = "/api/auth/app/:app_name";

/** Route pattern of the launch dry run under the portal prefix. */
export const VALIDATE_ROUTE = `${LAUNCH_ROUTE}/validate`;

/**
 * Route (under the portal prefix) of the continue page's form: a launch posted by a page with no
 * origin signs in only through it (server/launch/continue.tsx).
 */
export const CONTINUE_ROUTE = "/api/auth/continue";

/** The portal's empty warm-up page (under `{portal_url}`) that `portal-url` loads in a hidden frame. */
export const WARM_UP_ROUTE = "/widget/warm";

/** The launch path of an app under the portal prefix: `/api/auth/app/<app_name>`. */
export function launchPath(appName: string): string {
  return `/api/auth/app/${encodeURIComponent(appName)}`;
}

/**
 * The launch URL of an app: `{portal_url}/api/auth/app/<app_name>`, where `portalUrl` is the
 * portal's origin plus its prefix (a trailing slash is ignored).
 *
 * @example
 * ```ts
 * launchUrl("https://portal.example.com/portal/", "crm");
 * // "https://portal.example.com/portal/api/auth/app/crm"
 * ```
 */
export function launchUrl(portalUrl: string, appName: string): string {
  return `${portalUrl.replace(/\/+$/, "")}${launchPath(appName)}`;
}

/** The dry-run URL of an app: the launch URL plus `/validate`. */
export function validateUrl(portalUrl: string, appName: string): string {
  return `${launchUrl(portalUrl, appName)}/validate`;
}

/**
 * `type` values of the messages the portal posts to the host page (window.postMessage); the
 * message shapes and their reader are in host_messages.ts.
 */
export const MESSAGE_TYPES = {
  /** A refused launch, or a portal that cannot work in the frame (cookies blocked). */
  error: "portal-launcher:error",
  /** The session screen is shown. */
  ready: "portal-launcher:ready",
  /** The portal page's content height changed. */
  resize: "portal-launcher:resize",
  /** The agent changed the session. */
  session: "portal-launcher:session",
} as const;

/** UI flavors a launch may ask for (`parameters.target`). */
export const FLAVORS = ["standard", "embedded", "seesupport"] as const;

/** A UI flavor. */
export type Flavor = typeof FLAVORS[number];

/** The four guided-path search types. */
export const SEARCH_TYPES = ["category_uid", "tag", "path_uid", "full_text"] as const;

/** A guided-path search type. */
export type SearchType = typeof SEARCH_TYPES[number];

/** One field rule: the pattern a value must match and what to tell the sender when it does not. */
export interface FieldRule {
  pattern: RegExp;
  message: string;
}

/**
 * The field rules, one per kind of value. The launch payload schema, the admin forms and API,
 * the signer and the element all check these and no other copies.
 */
export const FIELD_RULES = {
  /**
   * External ids as CRMs send them: `context.user.id`, `contactId`, `referenceId` and
   * `referenceNumber`. Letters, digits, '-', '_', '.', and the braces of GUIDs as Microsoft
   * Dynamics writes them ({3F2504E0-4F89-11D3-9A0C-0305E82C3301}); 1-128 characters. A JSON
   * number is taken as its decimal text.
   */
  reference: {
    pattern: /^[A-Za-z0-9._{}-]{1,128}$/,
    message: "expected 1-128 letters, digits, '-', '_', '.', '{' or '}'",
  },
  /** Person names: Unicode letters (with combining marks), space, hyphen, apostrophe, period. */
  name: {
    pattern: /^\p{L}[\p{L}\p{M} '’.-]{0,99}$/u,
    message:
      "expected letters (spaces, hyphens, apostrophes and periods allowed), at most 100 characters",
  },
  /** E-mail `<name>@<account>.<suffix>`, at most 254 characters. */
  email: {
    pattern:
      /^(?=.{1,254}$)[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,63}$/,
    message: "expected an e-mail address like name@account.com",
  },
  /** Phone numbers as sent: digits, an optional leading '+', spaces, '-', '.', '(' and ')'. */
  phone: {
    pattern: /^(?=.{1,40}$)\+?[\d\s().-]+$/,
    message: "expected digits, optionally with a leading + and spaces, -, ., ( or ) " +
      "(at most 40 characters)",
  },
  /** A language or language-region code (fr, fr-CA, zh_Hant_TW), at most 35 characters. */
  locale: {
    pattern: /^(?=.{2,35}$)[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/,
    message: "expected a language or language-region code such as fr or fr-CA",
  },
  /** Team ids (`user.teams[].teamId`): letters, digits, '-', '_', '.'; 1-64. */
  teamId: {
    pattern: /^[A-Za-z0-9._-]{1,64}$/,
    message: "expected 1-64 letters, digits, '-', '_' or '.'",
  },
  /** Team names: 1-200 characters, not only spaces. */
  teamName: {
    pattern: /^(?=[\s\S]{1,200}$)[\s\S]*\S[\s\S]*$/,
    message: "expected 1-200 characters",
  },
  /** The single-use `nonce` of a signed request: 16-128 of letters, digits, '_' and '-'. */
  nonce: {
    pattern: /^[A-Za-z0-9_-]{16,128}$/,
    message: "expected 16-128 letters, digits, '_' or '-' (e.g. a random UUID)",
  },
  /** UUIDs (guided-path categories and paths): hyphenated 8-4-4-4-12 hexadecimal. */
  uuid: {
    pattern: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
    message: "expected a UUID in 8-4-4-4-12 hexadecimal form",
  },
} as const satisfies Record<string, FieldRule>;

/** Replay protection of a signed request (`issuedAt` and `nonce` at the payload's top level). */
export const FRESHNESS = {
  /** An `issuedAt` above this is in milliseconds, below it in seconds (Unix time). */
  millisecondsAbove: 1e12,
  /** How far in the future `issuedAt` may be (clock skew between the host and the service). */
  maxFutureSkewSeconds: 60,
  /** The app's window when none is set, and its bounds. */
  defaultMaxAgeSeconds: 300,
  minMaxAgeSeconds: 30,
  maxMaxAgeSeconds: 3600,
} as const;

/** An app's replay policy: `required` (the default), `optional` (legacy senders) or `off`. */
export const REPLAY_POLICIES = ["required", "optional", "off"] as const;

/** A replay policy. */
export type ReplayPolicy = typeof REPLAY_POLICIES[number];

/**
 * The freshness fields a sender adds to a payload: `issuedAt` now (Unix seconds) and a random
 * single-use `nonce`. Signers call it; it never changes the payload given.
 *
 * @example
 * ```ts
 * const signed = { ...payload, ...freshnessFields() };
 * // { algorithm, context, issuedAt: 1795000000, nonce: "b1f0c6d2-…" }
 * ```
 */
export function freshnessFields(now = Date.now()): { issuedAt: number; nonce: string } {
  return { issuedAt: Math.floor(now / 1000), nonce: crypto.randomUUID() };
}

/** Size bounds of a launch payload, so that no input costs more than its 64 KiB body. */
export const PAYLOAD_LIMITS = {
  /** Nesting depth of the JSON (the contract itself needs 9). */
  depth: 16,
  /** Entries of `user.teams`. */
  teams: 50,
  /** Names in `customFields`. */
  customFields: 100,
  /** Values of one guided-path search entry. */
  searchValues: 100,
  /** Anti-virus products of `deviceComputer.av_prods`. */
  avProducts: 50,
  /** Characters of a custom field value. */
  customFieldValue: 2000,
  /** Characters of a device property. */
  deviceValue: 500,
  /** Characters of a tag or a full-text search. */
  searchText: 200,
} as const;

/** Digits a phone number must have once separators are removed. */
export const PHONE_DIGITS = { min: 3, max: 20 } as const;

/**
 * A phone number as stored: its digits, or an error message when the text is not a phone number.
 *
 * @example
 * ```ts
 * normalizePhone("+1 (555) 010-9999"); // { digits: "15550109999" }
 * normalizePhone("call me"); // { error: "expected digits, ..." }
 * ```
 */
export function normalizePhone(text: string): { digits: string } | { error: string } {
  const trimmed = text.trim();
  if (!FIELD_RULES.phone.pattern.test(trimmed)) return { error: FIELD_RULES.phone.message };
  const digits = trimmed.replace(/\D/g, "");
  if (digits.length < PHONE_DIGITS.min || digits.length > PHONE_DIGITS.max) {
    return { error: `expected ${PHONE_DIGITS.min}-${PHONE_DIGITS.max} digits` };
  }
  return { digits };
}

/**
 * Content language of a locale: its first subtag, lower-cased (fr-CA gives fr); default en.
 *
 * @example
 * ```ts
 * contentLanguage("fr-CA"); // "fr"
 * contentLanguage(null); // "en"
 * ```
 */
export function contentLanguage(locale: string | null | undefined): string {
  return locale ? locale.split(/[-_]/)[0].toLowerCase() : "en";
}
