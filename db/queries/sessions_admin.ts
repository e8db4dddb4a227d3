/** SQL of the admin sessions list: the newest sessions, of every app or of one organization. */
import type { Sql } from "../mod.ts";

/** A session as the admin sessions list shows it. */
export interface AdminSessionRow {
  id: number;
  status: "open" | "closed";
  target: "standard" | "embedded" | "seesupport";
  externalReference: string | null;
  /** The app that created it; null when none was attributed (migration 00007) or it was deleted. */
  appName: string | null;
  /** The slug of its app's organization; null without an app. */
  organization: string | null;
  customerFirstName: string;
  customerLastName: string;
  customerEmail: string;
  assigneeId: number | null;
  assigneeFirstName: string | null;
  assigneeLastName: string | null;
  assigneeEmail: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The filters of the admin sessions list. */
export interface AdminSessionFilter {
  /** Only sessions of this organization's apps. */
  organizationId?: number;
  /** Keyset: sessions with a smaller id (the list runs newest first). */
  beforeId?: number;
}

/** Sessions matching the filter, newest first. */
export async function listAdminSessions(
  sql: Sql,
  f: AdminSessionFilter,
  limit: number,
): Promise<AdminSessionRow[]> {
  return await sql<AdminSessionRow[]>`
    select s.id, s.status, s.target, s.external_reference, s.created_at, s.updated_at,
      a.app_name, o.slug as organization,
      c.first_name as customer_first_name, c.last_name as customer_last_name,
      c.email as customer_email,
      u.id as assignee_id, u.first_name as assignee_first_name,
      u.last_name as assignee_last_name, u.email as assignee_email
    from sessions s
      join customers c on c.id = s.customer_id
      left join apps a on a.id = s.app_id
      left join organizations o on o.id = a.organization_id
      left join users u on u.id = s.assignee_id
    where true
      ${
    f.organizationId !== undefined
      ? sql`and s.app_id in (select x.id from apps x where x.organization_id = ${f.organizationId})`
      : sql``
  }
      ${f.beforeId !== undefined ? sql`and s.id < ${f.beforeId}` : sql``}
    order by s.id desc
    limit ${limit}
  `;
}
