/**
 * The guided-path rules of a launch (spec §2.3 rules 2-12): from the launch's `paths` object, the
 * published catalog and what already ran, decide what the session screen's paths panel shows.
 * Pure: no I/O.
 */
import type { LaunchView } from "../launch/payload.ts";

/** A path step in one language. */
export interface PathStep {
  title: string;
  body: string;
}

/** A published, live guided path. */
export interface CatalogPath {
  uid: string;
  categoryUid: string;
  title: string;
  tags: string[];
  steps: PathStep[];
  translations: Record<string, { title: string; steps?: PathStep[] }>;
}

/** What the panel works from. */
export interface PathsInput {
  /** The launch's paths object; null when the launch had none (or there is no launch). */
  paths: LaunchView["paths"];
  /** Published, live paths. */
  catalog: CatalogPath[];
  /** Path runs already recorded on this session. */
  runsOnSession: number;
  /** The viewing agent's most recently run path uids, newest first. */
  recentUids: string[];
  /** The search bar as the agent submitted it; undefined when never submitted. */
  query?: string;
}

/** What the panel shows. */
export interface PathsPanel {
  /** Where the screen lands: the remote control view, a path's runner, or the path list. */
  landing: "remote" | "run" | "list";
  /** The path that launches automatically (rule 10). */
  autoRunUid: string | null;
  /** The add-path list, after the search text. */
  listing: CatalogPath[];
  /** The text in the search bar. */
  searchText: string;
  /** Whether a Start Remote Connection button goes with each path run (rules 3 and 5). */
  remoteButton: boolean;
  /** Recently Used paths (rule 12); empty when they are not to be shown. */
  recentlyUsed: CatalogPath[];
}

/** How many Recently Used paths are shown. */
export const RECENT_LIMIT = 5;

/** A path's title in `language`, falling back to its own title. */
export function localTitle(path: CatalogPath, language: string): string {
  return path.translations[language]?.title ?? path.title;
}

/** A path's steps in `language`, falling back to its own steps. */
export function localSteps(path: CatalogPath, language: string): PathStep[] {
  return path.translations[language]?.steps ?? path.steps;
}

function values(paths: NonNullable<LaunchView["paths"]>, type: string): string[] | null {
  return paths.search.find((e) => e.type === type)?.values ?? null;
}

/** The launch's filtered list: union of the category, path_uid and tag matches (rules 6-8). */
function filtered(paths: LaunchView["paths"], catalog: CatalogPath[]): CatalogPath[] {
  if (!paths || paths.search.length === 0) return catalog;
  const categories = values(paths, "category_uid");
  const uids = values(paths, "path_uid");
  const tags = values(paths, "tag");
  if (!categories && !uids && !tags) return catalog; // full_text alone filters everything
  return catalog.filter((p) =>
    (categories?.includes(p.categoryUid) ?? false) ||
    (uids?.includes(p.uid) ?? false) ||
    (tags?.some((t) => p.tags.includes(t)) ?? false)
  );
}

/** Applies the search bar text to titles (any language) and tags, case-insensitively. */
function matchesText(path: CatalogPath, text: string): boolean {
  const needle = text.trim().toLowerCase();
  if (!needle) return true;
  const haystack = [
    path.title,
    ...Object.values(path.translations).map((t) => t.title),
    ...path.tags,
  ].join("\n").toLowerCase();
  return haystack.includes(needle);
}

/** Rules 3 and 5: a Start Remote Connection button goes with every path run only when the
 * launch has remote true and search entries. */
export function offersRemoteButton(paths: LaunchView["paths"]): boolean {
  return (paths?.remote ?? false) && (paths?.search.length ?? 0) > 0;
}

/** Decides the paths panel (spec §2.3 rules 2-12). */
export function pathsPanel(input: PathsInput): PathsPanel {
  const { paths, catalog } = input;
  const search = paths?.search ?? [];
  const afterFirst = input.runsOnSession > 0;
  const allPaths = paths?.allPaths ?? false;
  // Rule 11: after the first path, allPaths lists everything; otherwise the filtered list.
  const base = allPaths && afterFirst ? catalog : filtered(paths, catalog);
  // Rule 9: the full_text value fills the search bar until the agent submits another text.
  const searchText = input.query ?? paths?.search.find((e) => e.type === "full_text")?.values[0] ??
    "";
  const single = search.length === 1 && search[0].type === "path_uid" &&
      search[0].values.length === 1
    ? search[0].values[0]
    : null;
  const byUid = new Map(catalog.map((p) => [p.uid, p]));
  return {
    landing: paths?.remote && search.length === 0 ? "remote" : single ? "run" : "list",
    autoRunUid: single,
    listing: base.filter((p) => matchesText(p, searchText)),
    searchText,
    remoteButton: offersRemoteButton(paths),
    recentlyUsed: allPaths && afterFirst
      ? [...new Set(input.recentUids)].map((uid) => byUid.get(uid)).filter((p) => !!p)
        .slice(0, RECENT_LIMIT) as CatalogPath[]
      : [],
  };
}
