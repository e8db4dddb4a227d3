/** The launch audit log for administrators, with anything secret-looking masked. */
import {
  launchById,
  type LaunchLogFilter,
  type LaunchLogRow,
  listLaunches,
} from "../../db/queries/launch_log.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../http/errors.ts";
import { maskLaunchPayload } from "../launch/payload_mask.ts";

export type { LaunchLogRow };

/** A page of launch attempts, newest first. */
export async function launchLog(
  deps: Deps,
  filter: LaunchLogFilter,
  limit: number,
): Promise<LaunchLogRow[]> {
  return await listLaunches(deps.sql, filter, limit);
}

/** One launch attempt with its payload masked; 404 when missing. */
export async function launchDetail(deps: Deps, id: number): Promise<LaunchLogRow> {
  const row = await launchById(deps.sql, id);
  if (!row) throw new AppError(404, "launch_not_found", `Launch ${id} not found`);
  return { ...row, payload: maskLaunchPayload(row.payload), view: row.view };
}
