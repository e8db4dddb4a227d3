/**
 * What every admin screen group shares: its Hono env (the signed-in administrator and the parsed
 * form), the page context, form value readers and the refusals a screen shows with its form.
 */
import type { Context } from "hono";
import type { AppEnv } from "../../http/env.ts";
import { AppError } from "../../http/errors.ts";
import type { AdminContext } from "./layout.tsx";
import type { AdminSession } from "./session.ts";

/** The env of the admin screens: the guard sets `admin`, and `form` on every POST. */
export interface ScreenEnv extends AppEnv {
  Variables: AppEnv["Variables"] & { admin: AdminSession; form: Record<string, unknown> };
}

/** True when `err` is a refusal with one of `statuses` that the screen shows with the form. */
export function isRefusal<S extends 400 | 404 | 409>(
  err: unknown,
  ...statuses: S[]
): err is AppError & { status: S } {
  return err instanceof AppError && (statuses as number[]).includes(err.status);
}

/** The page context of a screen in `section`. */
export function adminContext(c: Context<ScreenEnv>, section: string): AdminContext {
  return { admin: c.get("admin"), csrf: c.get("admin").csrf, section };
}

/** A form value as text ("" when absent or a file). */
export function str(form: Record<string, unknown>, name: string): string {
  const v = form[name];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === "string" ? first : "";
}

/** Every value of a repeated form field. */
export function all(form: Record<string, unknown>, name: string): string[] {
  const v = form[name];
  const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return list.filter((x): x is string => typeof x === "string");
}

/** The positive numeric `:id` of the route; 404 otherwise. */
export function idParam(c: Context): number {
  const id = Number(c.req.param("id"));
  if (!Number.isSafeInteger(id) || id <= 0) throw new AppError(404, "not_found", "Not found");
  return id;
}
