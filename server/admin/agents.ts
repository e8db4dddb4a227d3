/** Administrator actions on agents. */
import { setAgentPassword } from "../../db/queries/users.ts";
import { hashPassword } from "../crypto/hashing.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../http/errors.ts";

/** Sets an agent's portal password (PBKDF2); 404 when no agent has that id. */
export async function setPassword(deps: Deps, agentId: number, password: string): Promise<void> {
  const hash = await hashPassword(password);
  if (!(await setAgentPassword(deps.sql, agentId, hash))) {
    throw new AppError(404, "agent_not_found", `Agent ${agentId} not found`);
  }
}
