/**
 * Sessions: the newest sessions of every app, filterable by organization (through the session's
 * app), 50 per page. Read-only: agents work on sessions in the portal, apps through the REST API.
 */
import { Hono } from "hono";
import { type AdminSessionRow, listAdminSessions } from "../../../db/queries/sessions_admin.ts";
import type { Deps } from "../../deps.ts";
import { LocalTime } from "../../http/local_time.tsx";
import { adminContext, type ScreenEnv } from "./form_helpers.ts";
import { adminPage, ColumnHeads } from "./layout.tsx";
import { organizationChoice, OrganizationFilter } from "./organization_select.tsx";

/** Sessions per page. */
export const SESSIONS_PAGE = 50;

/** A person's name, or their e-mail when both names are blank. */
function personName(first: string | null, last: string | null, email: string | null): string {
  return `${first ?? ""} ${last ?? ""}`.trim() || email || "-";
}

/** One row of the sessions table. */
function SessionRow(props: { s: AdminSessionRow }) {
  const s = props.s;
  return (
    <tr>
      <td>{String(s.id)}</td>
      <td>{s.appName ? <a href={`/admin/apps/${s.appName}`}>{s.appName}</a> : "none"}</td>
      <td>{s.organization ? <code>{s.organization}</code> : "none"}</td>
      <td>
        {personName(s.customerFirstName, s.customerLastName, s.customerEmail)}
        {s.externalReference ? <span class="hint">{` ${s.externalReference}`}</span> : null}
      </td>
      <td>
        {s.assigneeId
          ? (
            <a href={`/admin/users/${s.assigneeId}`}>
              {personName(s.assigneeFirstName, s.assigneeLastName, s.assigneeEmail)}
            </a>
          )
          : "unassigned"}
      </td>
      <td>{s.status}</td>
      <td>
        <LocalTime date={s.updatedAt} />
      </td>
      <td>
        <LocalTime date={s.createdAt} />
      </td>
    </tr>
  );
}

/** The sessions screen. */
export function sessionsScreens(deps: Deps): Hono<ScreenEnv> {
  const screens = new Hono<ScreenEnv>();

  screens.get("/sessions", async (c) => {
    const before = Number(c.req.query("before") ?? "");
    const choice = await organizationChoice(deps, c);
    const organization = choice.chosen?.slug;
    const rows = await listAdminSessions(deps.sql, {
      organizationId: choice.chosen?.id,
      beforeId: Number.isSafeInteger(before) && before > 0 ? before : undefined,
    }, SESSIONS_PAGE + 1);
    const more = rows.length > SESSIONS_PAGE;
    const shown = rows.slice(0, SESSIONS_PAGE);
    const next = new URLSearchParams({
      ...(organization ? { organization } : {}),
      before: String(shown.at(-1)?.id ?? 0),
    });
    return c.html(adminPage(
      adminContext(c, "sessions"),
      "Sessions",
      <>
        <p class="hint">
          The newest sessions first. A session belongs to the app that created it, and so to that
          app's organization.
        </p>
        <OrganizationFilter action="/admin/sessions" choice={choice} />
        <div class="table-wrap" tabindex={0}>
          <table data-testid="sessions">
            <ColumnHeads
              columns={[
                "Id",
                "App",
                "Organization",
                "Customer",
                "Assignee",
                "Status",
                "Updated",
                "Created",
              ]}
            />
            <tbody>
              {shown.map((s) => <SessionRow key={s.id} s={s} />)}
            </tbody>
          </table>
        </div>
        {shown.length === 0
          ? (
            <p class="empty">
              No sessions {organization ? "in this organization " : ""}yet. A launch opens one.
            </p>
          )
          : null}
        {more ? <a class="button secondary" href={`/admin/sessions?${next}`}>Next page</a> : null}
      </>,
    ));
  });

  return screens;
}
