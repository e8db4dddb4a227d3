/** Guided paths: categories with their paths, and the path form. */
import { type Context, Hono } from "hono";
import type { Deps } from "../../deps.ts";
import { AppError, validationError } from "../../http/errors.ts";
import {
  addCategory,
  addPath,
  categories,
  changePath,
  pathByUid,
  paths,
  removeCategory,
  removePath,
  renameCategoryByUid,
} from "../guided_paths.ts";
import {
  CreateCategorySchema,
  CreatePathSchema,
  UpdateCategorySchema,
  UpdatePathSchema,
  UuidSchema,
} from "../schemas.ts";
import { adminContext, isRefusal, type ScreenEnv, str } from "./form_helpers.ts";
import { adminPage, Banner, ColumnHeads, Csrf, errorMap, type Errors, Field } from "./layout.tsx";
import {
  BLANK_PATH_FORM,
  type PathForm,
  pathFormOf,
  PathFormView,
  pathInput,
} from "./path_form.tsx";

/** Where the guided-path screens live. */
const BASE = "/admin/guided-paths";

/** The `:uid` of the route, lower-cased; 404 when it is not a UUID. */
function uidParam(c: Context): string {
  const parsed = UuidSchema.safeParse(c.req.param("uid"));
  if (!parsed.success) throw new AppError(404, "not_found", "Not found");
  return parsed.data;
}

/** The guided-path screens under /guided-paths. */
export function guidedPathsScreens(deps: Deps): Hono<ScreenEnv> {
  const screens = new Hono<ScreenEnv>();
  const ctxOf = (c: Context<ScreenEnv>) => adminContext(c, "guided-paths");

  async function guidedPathsPage(
    c: Context<ScreenEnv>,
    state: { categoryName?: string; errors?: Errors; error?: string | null },
    status: 200 | 400 | 409 = 200,
  ) {
    const ctx = ctxOf(c);
    const [cats, list] = await Promise.all([categories(deps), paths(deps)]);
    const errors = state.errors ?? {};
    return c.html(
      adminPage(
        ctx,
        "Guided paths",
        <>
          <Banner error={state.error ?? null} />
          <p>
            <a class="button" href={`${BASE}/paths/new`}>New path</a>
          </p>
          {cats.map((cat) => (
            <section key={cat.uid} data-category={cat.uid}>
              <h2>{cat.name}</h2>
              <p class="hint">
                <code>{cat.uid}</code>
              </p>
              <div class="table-wrap" tabindex={0}>
                <table>
                  <ColumnHeads columns={["Path", "Tags", "Published", "Steps"]} />
                  <tbody>
                    {list.filter((p) => p.categoryUid === cat.uid).map((p) => (
                      <tr key={p.uid}>
                        <td>
                          <a href={`${BASE}/paths/${p.uid}`}>{p.title}</a>
                        </td>
                        <td>{p.tags.join(", ")}</td>
                        <td>{p.published ? "yes" : "no"}</td>
                        <td>{String(p.steps.length)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <div class="row">
                <form method="post" action={`${BASE}/categories/${cat.uid}`} class="row">
                  <Csrf ctx={ctx} />
                  <label for={`rename-${cat.uid}`}>Rename</label>
                  <input id={`rename-${cat.uid}`} name="name" value={cat.name} required />
                  <button type="submit" class="secondary">Rename</button>
                </form>
                <form method="post" action={`${BASE}/categories/${cat.uid}/delete`}>
                  <Csrf ctx={ctx} />
                  <button type="submit" class="danger" aria-label={`Delete category ${cat.name}`}>
                    Delete category
                  </button>
                </form>
              </div>
            </section>
          ))}
          <h2>Add a category</h2>
          <form method="post" action={`${BASE}/categories`}>
            <Csrf ctx={ctx} />
            <Field name="name" label="Name" value={state.categoryName ?? ""} errors={errors} />
            <button type="submit">Add category</button>
          </form>
        </>,
      ),
      status,
    );
  }

  /** The list again with a refusal's messages; anything else is rethrown. */
  async function refused(c: Context<ScreenEnv>, err: unknown, name?: string) {
    if (!isRefusal(err, 400, 409)) throw err;
    return await guidedPathsPage(c, {
      categoryName: name,
      errors: errorMap(err.errors),
      error: err.message,
    }, err.status);
  }

  screens.get("/guided-paths", (c) => guidedPathsPage(c, {}));

  screens.post("/guided-paths/categories", async (c) => {
    const name = str(c.get("form"), "name");
    try {
      const parsed = CreateCategorySchema.safeParse({ name });
      if (!parsed.success) throw validationError(parsed.error.issues);
      await addCategory(deps, parsed.data);
      return c.redirect(BASE, 303);
    } catch (err) {
      return await refused(c, err, name);
    }
  });

  screens.post("/guided-paths/categories/:uid", async (c) => {
    try {
      const parsed = UpdateCategorySchema.safeParse({ name: str(c.get("form"), "name") });
      if (!parsed.success) throw validationError(parsed.error.issues);
      await renameCategoryByUid(deps, uidParam(c), parsed.data.name);
      return c.redirect(BASE, 303);
    } catch (err) {
      return await refused(c, err);
    }
  });

  screens.post("/guided-paths/categories/:uid/delete", async (c) => {
    try {
      await removeCategory(deps, uidParam(c));
      return c.redirect(BASE, 303);
    } catch (err) {
      return await refused(c, err);
    }
  });

  async function pathPage(
    c: Context<ScreenEnv>,
    uid: string | null,
    f: PathForm,
    errors: Errors,
    status: 200 | 400 = 200,
    notice: string | null = null,
  ) {
    const ctx = ctxOf(c);
    const view = (
      <PathFormView
        ctx={ctx}
        uid={uid}
        f={f}
        categories={await categories(deps)}
        errors={errors}
        notice={notice}
      />
    );
    return c.html(adminPage(ctx, uid ? `Path: ${f.title}` : "New path", view), status);
  }

  /**
   * Saves the path form: `save` parses and writes, answering the saved uid. A refusal (fields,
   * a taken uid, an unknown category) shows the form again with the messages by its fields.
   */
  async function savePath(
    c: Context<ScreenEnv>,
    uid: string | null,
    save: (input: unknown) => Promise<string>,
  ) {
    const { f, input, errors } = pathInput(c.get("form"));
    try {
      if (Object.keys(errors).length) return await pathPage(c, uid, f, errors, 400);
      const saved = await save(input);
      return c.redirect(`${BASE}/paths/${saved}?saved=1`, 303);
    } catch (err) {
      if (!isRefusal(err, 400, 409, 404)) throw err;
      const fields = err.errors ? errorMap(err.errors) : { categoryUid: err.message };
      return await pathPage(c, uid, f, fields, 400);
    }
  }

  screens.get("/guided-paths/paths/new", (c) => pathPage(c, null, { ...BLANK_PATH_FORM }, {}));

  screens.post("/guided-paths/paths", (c) =>
    savePath(c, null, async (input) => {
      const parsed = CreatePathSchema.safeParse(input);
      if (!parsed.success) throw validationError(parsed.error.issues);
      return (await addPath(deps, parsed.data)).uid;
    }));

  screens.get("/guided-paths/paths/:uid", async (c) => {
    const p = await pathByUid(deps, uidParam(c));
    return pathPage(c, p.uid, pathFormOf(p), {}, 200, c.req.query("saved") ? "Saved." : null);
  });

  screens.post("/guided-paths/paths/:uid", async (c) => {
    const uid = uidParam(c);
    await pathByUid(deps, uid); // 404 first
    return await savePath(c, uid, async (input) => {
      const parsed = UpdatePathSchema.safeParse(input);
      if (!parsed.success) throw validationError(parsed.error.issues);
      await changePath(deps, uid, parsed.data);
      return uid;
    });
  });

  screens.post("/guided-paths/paths/:uid/delete", async (c) => {
    await removePath(deps, uidParam(c));
    return c.redirect(BASE, 303);
  });

  return screens;
}
