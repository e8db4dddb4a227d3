/**
 * The agent portal, mounted at PORTAL_PREFIX: the session screen a launch lands on, its actions,
 * the path runner and the agent's sessions (sign-in: sign_in_routes.tsx). Every route here runs
 * after the portal's guard (guard.ts), so `c.get("agent")` is always a signed-in agent.
 */
import { type Context, Hono } from "hono";
import { portalPageMiddleware } from "./page_headers.ts";
import {
  agentReachesSession,
  insertSessionEvent,
  publishedPaths,
  recentPathUids,
  screenSettings,
  sessionsOfAgent,
  transferTargets,
} from "../../db/queries/portal.ts";
import { sessionById } from "../../db/queries/sessions.ts";
import { csrfMatches } from "../auth/logins.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../http/errors.ts";
import { clearPortalCookie } from "../auth/cookies.ts";
import { deleteLogin, setLoginLocale } from "../../db/queries/logins.ts";
import { safeNext } from "../http/access.ts";
import { frameAncestorsCsp } from "../http/frame_ancestors.ts";
import { type CatalogPath, offersRemoteButton, pathsPanel, RECENT_LIMIT } from "./guided_paths.ts";
import { contentLanguage } from "../launch/contract.ts";
import { changeSession } from "../sessions/changes.ts";
import { SESSION_CHANGES, type SessionChange } from "../launch/host_messages.ts";
import type { PortalAgent, PortalEnv } from "./auth.ts";
import { PORTAL_LANGUAGES, portalLanguage, type StringKey, translator } from "./i18n.ts";
import {
  messagePage,
  type PageContext,
  pathRunner,
  remotePage,
  sessionScreen,
  sessionsPage,
} from "./pages.tsx";
import { requestRemoteConnection } from "./remote.ts";
import { remoteById } from "../../db/queries/remote.ts";
import { mailInvitation, openRemoteOf } from "../remote/invitations.ts";
import { remoteWords } from "../remote/remote_i18n.ts";
import { completePath } from "../sessions/path_runs.ts";
import {
  defaultView,
  launchParam,
  pageHere,
  portalUrl,
  resolveView,
  type ScreenView,
} from "./view.ts";

const SESSION_PATH = "/sessions/:id{[1-9][0-9]{0,14}}";
const PATH_UID = ":uid{[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}}";

/** Portal routes, mounted at PORTAL_PREFIX behind the portal's guard. */
export function portalRoutes(deps: Deps): Hono<PortalEnv> {
  const app = new Hono<PortalEnv>();
  const prefix = deps.config.portalPrefix;

  app.use("*", ...portalPageMiddleware);

  // An agent reaches only the sessions it works on (assignee, put there by a launch, or a team
  // mate of the assignee); any other session is 404, the same answer as a missing one.
  const onlyReachable = async (c: Context<PortalEnv>, next: () => Promise<void>) => {
    const agent = c.get("agent");
    const sessionId = Number(c.req.param("id"));
    if (!(await agentReachesSession(deps.sql, { agentId: agent.userId, sessionId }))) {
      return message(c, agent, 404, "notFound");
    }
    await next();
  };
  // The wildcard also matches /sessions/:id itself: one check per request.
  app.use(`${SESSION_PATH}/*`, onlyReachable);

  // The header's language menu: changes the language of this login only, then comes back.
  app.post("/language", async (c) => {
    const agent = c.get("agent");
    const form = await c.req.parseBody();
    if (!csrfMatches(agent, form.csrf)) return message(c, agent, 403, "expired");
    const language = typeof form.language === "string" ? form.language : "";
    if (!PORTAL_LANGUAGES.includes(language)) {
      throw new AppError(
        400,
        "invalid_language",
        `language must be one of: ${PORTAL_LANGUAGES.join(", ")}`,
      );
    }
    const back = form.back === undefined || form.back === ""
      ? `${prefix}/sessions`
      : safeNext(prefix, form.back, "");
    if (!back) {
      throw new AppError(
        400,
        "invalid_back",
        `back must be a path of this portal, such as ${prefix}/sessions`,
      );
    }
    await setLoginLocale(deps.sql, { tokenHash: agent.tokenHash, locale: language });
    return c.redirect(back, 303);
  });

  app.post("/logout", async (c) => {
    const agent = c.get("agent");
    const form = await c.req.parseBody();
    if (!csrfMatches(agent, form.csrf)) return message(c, agent, 403, "expired");
    await deleteLogin(deps.sql, agent.tokenHash);
    clearPortalCookie(c, prefix);
    return c.redirect(`${prefix}/login`, 303);
  });

  function pageContext(c: Context<PortalEnv>, agent: PortalAgent, view: ScreenView): PageContext {
    const language = portalLanguage(view.language);
    return { t: translator(language), language, prefix, agent, view, here: pageHere(c) };
  }

  function sessionIdOf(c: Context<PortalEnv>): number {
    return Number(c.req.param("id"));
  }

  async function catalog(): Promise<CatalogPath[]> {
    return await publishedPaths(deps.sql);
  }

  /** A message page in the agent's language. */
  function message(
    c: Context<PortalEnv>,
    agent: PortalAgent | null,
    status: 400 | 403 | 404 | 409 | 429,
    key: StringKey,
  ) {
    const language = portalLanguage(contentLanguage(agent?.locale));
    const t = translator(language);
    return c.html(messagePage(language, t(key), t(key)), status);
  }

  /** Renders the session screen. */
  async function screen(c: Context<PortalEnv>, agent: PortalAgent, notice: StringKey | null) {
    const asked = c.req.query("change");
    const change = SESSION_CHANGES.includes(asked as SessionChange) ? asked! : null;
    const id = sessionIdOf(c);
    const view = await resolveView(deps, agent, id);
    c.header("Content-Security-Policy", frameAncestorsCsp(view.frameAncestors));
    const [session, settings, paths, recent, targets] = await Promise.all([
      sessionById(deps.sql, id),
      screenSettings(deps.sql),
      catalog(),
      recentPathUids(deps.sql, agent.userId, RECENT_LIMIT),
      transferTargets(deps.sql, { sessionId: id, exceptId: agent.userId }),
    ]);
    if (!session) return message(c, agent, 404, "notFound");
    const panel = pathsPanel({
      paths: view.paths,
      catalog: paths,
      runsOnSession: session.pathRuns.length,
      recentUids: recent,
      query: c.req.query("q"),
    });
    const explicit = c.req.query("panel") !== undefined || c.req.query("q") !== undefined;
    // Rule 10: a single path_uid launches that path, once, when the launch lands.
    if (!explicit && panel.landing === "run" && panel.autoRunUid) {
      const ran = session.pathRuns.some((r) => r.pathUid === panel.autoRunUid);
      if (!ran && paths.some((p) => p.uid === panel.autoRunUid)) {
        return c.redirect(
          portalUrl(prefix, `/sessions/${id}/paths/${panel.autoRunUid}`, view.launchId),
          303,
        );
      }
    }
    // Rule 2: remote with no search entries lands straight in the remote view (screen sharing).
    if (!explicit && panel.landing === "remote" && view.launchId) {
      const invited = await requestRemoteConnection(deps, {
        sessionId: id,
        agentId: agent.userId,
        launchId: view.launchId,
      });
      return c.redirect(
        portalUrl(
          prefix,
          `/sessions/${id}/remote`,
          view.launchId,
          invited ? { done: "invited" } : {},
        ),
        303,
      );
    }
    const ctx = pageContext(c, agent, view);
    return c.html(sessionScreen({
      ...ctx,
      session,
      settings,
      panel,
      transferTargets: targets,
      notice: notice ? ctx.t(notice) : null,
      change,
    }));
  }

  app.get(SESSION_PATH, async (c) => {
    const agent = c.get("agent");
    const done = c.req.query("done");
    const notices: Record<string, StringKey> = {
      visual: "visualSupportStarted",
      remote: "remoteRequested",
    };
    return await screen(c, agent, done && done in notices ? notices[done] : null);
  });

  /** Reads a posted portal form: the agent, the CSRF check and the launch's view. */
  async function postedForm(c: Context<PortalEnv>) {
    const agent = c.get("agent");
    const form = await c.req.parseBody();
    if (!csrfMatches(agent, form.csrf)) {
      return { refusal: message(c, agent, 403, "expired") };
    }
    const id = sessionIdOf(c);
    const view = await resolveView(deps, agent, id);
    return { agent, form, id, view };
  }

  function backToScreen(c: Context<PortalEnv>, id: number, view: ScreenView, extra = {}) {
    return c.redirect(portalUrl(prefix, `/sessions/${id}`, view.launchId, extra), 303);
  }

  /** Posts a session change if `allowed` for the launch; hidden controls are refused. */
  function action(
    path: string,
    allowed: (view: ScreenView) => boolean,
    run: (
      p: { agent: PortalAgent; form: Record<string, unknown>; id: number; view: ScreenView },
    ) => Promise<Record<string, string> | void>,
  ) {
    app.post(`${SESSION_PATH}${path}`, async (c) => {
      const posted = await postedForm(c);
      if ("refusal" in posted) return posted.refusal!;
      if (!allowed(posted.view)) return message(c, posted.agent, 403, "refused");
      try {
        const extra = await run(posted);
        return backToScreen(c, posted.id, posted.view, extra ?? {});
      } catch (err) {
        if (err instanceof AppError && err.status === 404) {
          return message(c, posted.agent, 404, "notFound");
        }
        throw err;
      }
    });
  }

  action("/status", (v) => v.showSessionStatusChange, async ({ agent, form, id }) => {
    const status = form.status === "closed" ? "closed" : form.status === "open" ? "open" : null;
    if (!status) throw new AppError(400, "invalid_status", "status must be open or closed");
    await changeSession(deps, id, { status }, { agentId: agent.userId, via: "portal" });
    return { change: status === "closed" ? "closed" : "reopened" };
  });

  action("/assign", (v) => v.showAssignToMeButton, async ({ agent, id }) => {
    await changeSession(deps, id, { assigneeId: agent.userId }, {
      agentId: agent.userId,
      via: "portal",
    });
    return { change: "assigned" };
  });

  action("/transfer", (v) => v.showSessionTransferButton, async ({ agent, form, id }) => {
    const target = launchParam(form.agentId);
    if (!target) throw new AppError(400, "invalid_agent", "Choose an agent");
    await changeSession(deps, id, { assigneeId: target }, {
      agentId: agent.userId,
      via: "portal",
    });
    return { change: "transferred" };
  });

  action("/visual-support", (v) => v.target === "seesupport", async ({ agent, id }) => {
    await insertSessionEvent(deps.sql, {
      sessionId: id,
      kind: "visual_support_started",
      agentId: agent.userId,
      detail: {},
    });
    return { done: "visual", panel: "list" };
  });

  app.post(`${SESSION_PATH}/remote`, async (c) => {
    const posted = await postedForm(c);
    if ("refusal" in posted) return posted.refusal!;
    const { agent, id, view } = posted;
    // Rules 3 and 5: only a launch with remote true offers a remote connection.
    if (!view.paths?.remote || !view.launchId) return message(c, agent, 403, "refused");
    await requestRemoteConnection(deps, {
      sessionId: id,
      agentId: agent.userId,
      launchId: view.launchId,
      again: true,
    });
    return c.redirect(
      portalUrl(prefix, `/sessions/${id}/remote`, view.launchId, { done: "invited" }),
      303,
    );
  });

  app.post(`${SESSION_PATH}/remote/:rid{[1-9][0-9]{0,14}}/mail`, async (c) => {
    const posted = await postedForm(c);
    if ("refusal" in posted) return posted.refusal!;
    const { agent, id, view } = posted;
    const [remote, session] = await Promise.all([
      remoteById(deps.sql, Number(c.req.param("rid"))),
      sessionById(deps.sql, id),
    ]);
    const email = session?.customer?.email;
    if (!remote || remote.sessionId !== id || !session) return message(c, agent, 404, "notFound");
    if (!email) return message(c, agent, 400, "refused");
    await mailInvitation(deps, remote, {
      email,
      name: [session.customer.firstName, session.customer.lastName].filter(Boolean).join(" "),
      language: pageContext(c, agent, view).language,
    });
    return c.redirect(
      portalUrl(prefix, `/sessions/${id}/remote`, view.launchId, { mailed: "1" }),
      303,
    );
  });

  app.get(`${SESSION_PATH}/remote`, async (c) => {
    const agent = c.get("agent");
    const id = sessionIdOf(c);
    const view = await resolveView(deps, agent, id);
    c.header("Content-Security-Policy", frameAncestorsCsp(view.frameAncestors));
    const session = await sessionById(deps.sql, id);
    const remote = await openRemoteOf(deps, id, session?.customer?.email ?? null);
    const ctx = pageContext(c, agent, view);
    const notice = c.req.query("mailed") && session?.customer?.email
      ? remoteWords(ctx.language)("mailed", { email: session.customer.email })
      : c.req.query("done") === "invited"
      ? ctx.t("remoteRequested")
      : null;
    return c.html(remotePage(ctx, id, remote, notice));
  });

  app.get(`${SESSION_PATH}/paths/${PATH_UID}`, async (c) => {
    const agent = c.get("agent");
    const id = sessionIdOf(c);
    const view = await resolveView(deps, agent, id);
    c.header("Content-Security-Policy", frameAncestorsCsp(view.frameAncestors));
    const path = (await catalog()).find((p) => p.uid === c.req.param("uid"));
    const session = await sessionById(deps.sql, id);
    if (!path || !session) return message(c, agent, 404, "notFound");
    const step = Number(c.req.query("step") ?? "1");
    return c.html(pathRunner(pageContext(c, agent, view), {
      sessionId: id,
      path,
      step: Number.isSafeInteger(step) ? step : 1,
      remoteButton: offersRemoteButton(view.paths),
    }));
  });

  app.post(`${SESSION_PATH}/paths/${PATH_UID}/done`, async (c) => {
    const posted = await postedForm(c);
    if ("refusal" in posted) return posted.refusal!;
    const { agent, id, view } = posted;
    const uid = c.req.param("uid")!;
    const [path, session] = await Promise.all([
      catalog().then((all) => all.find((p) => p.uid === uid)),
      sessionById(deps.sql, id),
    ]);
    if (!path || !session) return message(c, agent, 404, "notFound");
    await completePath(deps, {
      sessionId: id,
      pathUid: uid,
      pathTitle: path.title,
      agentId: agent.userId,
    });
    return backToScreen(c, id, view, { panel: "list", change: "path-completed" });
  });

  // {portal_url}/ and {portal_url}: the agent's sessions (signed out: the guard's sign-in).
  app.get("/", (c) => c.redirect(`${prefix}/sessions`, 302));

  app.get("/sessions", async (c) => {
    const agent = c.get("agent");
    const view = defaultView(agent);
    return c.html(
      sessionsPage(
        pageContext(c, agent, view),
        await sessionsOfAgent(deps.sql, agent.userId, 200),
      ),
    );
  });

  return app;
}
