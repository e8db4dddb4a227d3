/**
 * The service's zod messages: a missing field says "required" rather than a type mismatch. No side
 * effect on import (the signer's validate entry bundles this): the service installs the messages
 * zod-wide in server/zod_setup.ts, and parseLaunchPayload passes them to its own parse.
 */

/** zod's `error` customisation: "required" for a missing field, "expected <type>" for a wrong one. */
export function zodMessages(
  issue: { code?: string; input?: unknown; expected?: string },
): string | undefined {
  if (issue.code === "invalid_type" && issue.input === undefined) return "required";
  if (issue.code === "invalid_type") return `expected ${issue.expected}`;
  return undefined;
}

/** A zod error option: "required" when the field is missing, else `text`. */
export function msg(text: string): { error: (issue: { input?: unknown }) => string } {
  return { error: (issue) => (issue.input === undefined ? "required" : text) };
}
