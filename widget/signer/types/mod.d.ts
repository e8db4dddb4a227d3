/**
 * Type declarations of `@portal-launcher/signer` (built from widget/signer/mod.ts; a type test,
 * test/widget/signer_types_test.ts, checks they match the source).
 */

/** Signs a launch payload (a string payload is signed as the exact JSON text given). */
export declare function signLaunch(payload: unknown, apiKey: string): Promise<string>;

/** The agent, from the host's own authentication. */
export interface LaunchUser {
  id?: string;
  email: string;
  first_name: string;
  last_name: string;
  phone?: string;
  locale?: string;
  teams?: { teamId: string; teamName: string }[];
}

/** One problem with one field of the payload. */
export interface FieldProblem {
  path: string;
  message: string;
}

/** Why a payload cannot launch. */
export interface LaunchProblem {
  message: string;
  errors: FieldProblem[];
}

/** Checks a payload before it is signed: null when it can launch. */
export type LaunchValidator = (
  payload: Record<string, unknown>,
) => LaunchProblem | null | Promise<LaunchProblem | null>;

/** Options of createSignHandler. */
export interface SignHandlerOptions {
  portalUrl: string;
  appName: string;
  apiKey: string;
  user: (req: Request) => LaunchUser | null | Promise<LaunchUser | null>;
  parameters?: (
    req: Request,
    requested: Record<string, unknown>,
  ) => Record<string, unknown> | Promise<Record<string, unknown>>;
  allow?: string[];
  validate?: "portal" | "none" | LaunchValidator;
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
}

/** A `(req) => Response` handler for the element's sign-url. */
export declare function createSignHandler(
  options: SignHandlerOptions,
): (req: Request) => Promise<Response>;
