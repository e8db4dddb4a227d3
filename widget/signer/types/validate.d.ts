/** Type declarations of `@portal-launcher/signer/validate` (self-contained on purpose). */

/** The service's payload schema applied locally: null when the payload can launch. */
export declare function validateLaunchPayload(
  payload: Record<string, unknown>,
): { message: string; errors: { path: string; message: string }[] } | null;
