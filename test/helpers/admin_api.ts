/** A test service with its admin token and a JSON client of the admin API (/api/v1/admin). */
import type { Backend } from "./db.ts";
import type { Json } from "./payload.ts";
import { startTestService, type TestService } from "./service.ts";

/** The service, its admin token, and a JSON client of the admin API. */
export interface AdminApi {
  svc: TestService;
  token: string;
  /** Sends `body` as JSON to /api/v1/admin`path`; answers the status and the parsed body. */
  api(method: string, path: string, body?: unknown): Promise<
    { status: number; body: Json; res: Response }
  >;
}

/** Starts a service on a fresh database of `backend` with an admin API client. */
export async function startAdminApi(backend: Backend): Promise<AdminApi> {
  const svc = await startTestService(backend);
  const token = await svc.adminToken();
  return {
    svc,
    token,
    async api(method, path, body) {
      const res = await svc.api(method, `/api/v1/admin${path}`, token, body);
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null, res };
    },
  };
}
