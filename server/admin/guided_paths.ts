/** Guided paths: their categories and the paths themselves (deleting is soft). */
import { inTransaction } from "../transaction.ts";
import { withIsoTimes } from "../api/views.ts";
import type { z } from "@hono/zod-openapi";
import {
  type CategoryRow,
  countLivePaths,
  deleteCategory,
  deletePath,
  findCategory,
  findPath,
  insertCategory,
  insertPath,
  listCategories,
  listPaths,
  type PathRow,
  renameCategory,
  updatePath,
} from "../../db/queries/paths.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../http/errors.ts";
import type { CreateCategorySchema, CreatePathSchema, UpdatePathSchema } from "./schemas.ts";

/** A category as the admin API shows it. */
export interface Category {
  uid: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}

/** A path as the admin API shows it. */
export type GuidedPath = Omit<PathRow, "createdAt" | "updatedAt"> & {
  createdAt: string;
  updatedAt: string;
};

function categoryView(row: CategoryRow): Category {
  return withIsoTimes(row);
}

function pathView(row: PathRow): GuidedPath {
  return withIsoTimes(row);
}

function unknownCategory(uid: string): AppError {
  return new AppError(404, "category_not_found", `Unknown path category: ${uid}`);
}

/** Lists live categories. */
export async function categories(deps: Deps): Promise<Category[]> {
  return (await listCategories(deps.sql)).map(categoryView);
}

/** Creates a category (uid generated when omitted). */
export async function addCategory(
  deps: Deps,
  input: z.infer<typeof CreateCategorySchema>,
): Promise<Category> {
  const uid = input.uid ?? crypto.randomUUID();
  const row = await insertCategory(deps.sql, { uid, name: input.name });
  if (!row) {
    throw new AppError(409, "category_exists", `Category ${uid} already exists (or existed)`, [
      { path: "uid", message: "already used" },
    ]);
  }
  return categoryView(row);
}

/** Renames a category. */
export async function renameCategoryByUid(
  deps: Deps,
  uid: string,
  name: string,
): Promise<Category> {
  const row = await renameCategory(deps.sql, uid, name);
  if (!row) throw unknownCategory(uid);
  return categoryView(row);
}

/** Deletes an empty category; one that still has paths is a 409. */
export async function removeCategory(deps: Deps, uid: string): Promise<void> {
  await inTransaction(deps, async ({ tx }) => {
    if (!(await findCategory(tx, uid))) throw unknownCategory(uid);
    const count = await countLivePaths(tx, uid);
    if (count > 0) {
      throw new AppError(
        409,
        "category_not_empty",
        `Category ${uid} still has ${count} path(s): delete them or move them to another category`,
      );
    }
    await deleteCategory(tx, uid);
  });
}

/** Lists live paths, optionally of one category. */
export async function paths(deps: Deps, categoryUid?: string): Promise<GuidedPath[]> {
  return (await listPaths(deps.sql, categoryUid)).map(pathView);
}

/** Reads one live path. */
export async function pathByUid(deps: Deps, uid: string): Promise<GuidedPath> {
  const row = await findPath(deps.sql, uid);
  if (!row) throw new AppError(404, "path_not_found", `Unknown guided path: ${uid}`);
  return pathView(row);
}

async function requireCategory(deps: Deps, uid: string): Promise<void> {
  if (!(await findCategory(deps.sql, uid))) {
    throw new AppError(400, "validation_failed", "Invalid request", [
      { path: "categoryUid", message: `no category ${uid}` },
    ]);
  }
}

/** Creates a path (uid generated when omitted). */
export async function addPath(
  deps: Deps,
  input: z.infer<typeof CreatePathSchema>,
): Promise<GuidedPath> {
  await requireCategory(deps, input.categoryUid);
  const uid = input.uid ?? crypto.randomUUID();
  const row = await insertPath(deps.sql, { ...input, uid, tags: [...new Set(input.tags)] });
  if (!row) {
    throw new AppError(409, "path_exists", `Path ${uid} already exists (or existed)`, [
      { path: "uid", message: "already used" },
    ]);
  }
  return pathView(row);
}

/** Updates a path. */
export async function changePath(
  deps: Deps,
  uid: string,
  patch: z.infer<typeof UpdatePathSchema>,
): Promise<GuidedPath> {
  const current = await findPath(deps.sql, uid);
  if (!current) throw new AppError(404, "path_not_found", `Unknown guided path: ${uid}`);
  if (patch.categoryUid) await requireCategory(deps, patch.categoryUid);
  const row = await updatePath(deps.sql, {
    ...current,
    ...patch,
    tags: [...new Set(patch.tags ?? current.tags)],
  });
  if (!row) throw new AppError(404, "path_not_found", `Unknown guided path: ${uid}`);
  return pathView(row);
}

/** Deletes a path; launches naming it are then refused as no longer valid. */
export async function removePath(deps: Deps, uid: string): Promise<void> {
  if (!(await deletePath(deps.sql, uid))) {
    throw new AppError(404, "path_not_found", `Unknown guided path: ${uid}`);
  }
}
