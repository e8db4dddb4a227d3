/**
 * `@portal-launcher/signer/validate`: the service's own payload schema, applied locally (no
 * network), for `createSignHandler({ validate: validateLaunchPayload })`. It bundles the schema
 * (and zod) in its own module scope, so it is larger than the core and changes nothing global.
 *
 * @module
 */
import { parseLaunchPayload } from "../../server/launch/payload.ts";
import type { FieldProblem, LaunchProblem } from "./mod.ts";

/**
 * Applies every rule of the launch payload (docs/launch-protocol.md): null when the payload can
 * launch, else the message and every field's problem. Rules that need the database (the app's
 * replay policy, identity conflicts, custom-field settings) are the portal's: its dry run sees them.
 *
 * @example
 * ```ts
 * import { validateLaunchPayload } from "@portal-launcher/signer/validate";
 *
 * validateLaunchPayload({
 *   ...payload, // algorithm, issuedAt, nonce
 *   context: {
 *     user: { email: "nope", first_name: "Ada", last_name: "L" },
 *     environment: { parameters: {} },
 *   },
 * });
 * // { message: "Invalid launch payload", errors: [{ path: "context.user.email",
 * //   message: "expected an e-mail address like name@account.com" }] }
 * ```
 */
export function validateLaunchPayload(payload: Record<string, unknown>): LaunchProblem | null {
  try {
    parseLaunchPayload(payload);
    return null;
  } catch (err) {
    const e = err as { message?: string; errors?: FieldProblem[] };
    return {
      message: e.message ?? "Invalid launch payload",
      errors: (e.errors ?? []).map(({ path, message }) => ({ path, message })),
    };
  }
}
