/**
 * Request body limits through Hono's `bodyLimit`, with one 413 answer for the whole service:
 * `{"code": "body_too_large", "message": "Request body too large (limit N KiB)"}`.
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "./errors.ts";

/** Refuses bodies over `kib` KiB with the service's 413 error. */
export function limitBody(kib: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: kib * 1024,
    onError: () => {
      throw new AppError(413, "body_too_large", `Request body too large (limit ${kib} KiB)`);
    },
  });
}
