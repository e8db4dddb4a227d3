/**
 * The signer package's hand-written declarations (widget/signer/types/) match its source: the
 * type check of this file fails when a signature drifts, and the test compares export names.
 */
import assert from "node:assert/strict";
import type * as Declared from "../../widget/signer/types/mod.d.ts";
import type * as DeclaredValidate from "../../widget/signer/types/validate.d.ts";
import * as Source from "../../widget/signer/mod.ts";
import * as SourceValidate from "../../widget/signer/validate.ts";

/** true when A and B are assignable both ways. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const same: true[] = [
  true as Same<typeof Source.signLaunch, typeof Declared.signLaunch>,
  true as Same<typeof Source.createSignHandler, typeof Declared.createSignHandler>,
  true as Same<Source.SignHandlerOptions, Declared.SignHandlerOptions>,
  true as Same<Source.LaunchUser, Declared.LaunchUser>,
  true as Same<Source.LaunchProblem, Declared.LaunchProblem>,
  true as Same<Source.LaunchValidator, Declared.LaunchValidator>,
  true as Same<
    typeof SourceValidate.validateLaunchPayload,
    typeof DeclaredValidate.validateLaunchPayload
  >,
];

async function declaredFunctions(file: string): Promise<string[]> {
  const text = await Deno.readTextFile(
    new URL(`../../widget/signer/types/${file}`, import.meta.url),
  );
  return [...text.matchAll(/export declare function (\w+)/g)].map((m) => m[1]).sort();
}

Deno.test("signer types: the declarations name exactly the source's exports", async () => {
  assert.equal(same.length, 7);
  assert.deepEqual(Object.keys(Source).sort(), await declaredFunctions("mod.d.ts"));
  assert.deepEqual(Object.keys(SourceValidate).sort(), await declaredFunctions("validate.d.ts"));
});
