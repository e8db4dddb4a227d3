import assert from "node:assert/strict";

const vectors = JSON.parse(
  await Deno.readTextFile(new URL("../fixtures/signed_request.json", import.meta.url)),
).cases;
const SIGN = new URL("../../tools/sign.ts", import.meta.url).pathname;

Deno.test("deno task sign prints the signed_request of a payload file (vector 'minimal')", async () => {
  const v = vectors.find((c: { name: string }) => c.name === "minimal");
  const file = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(file, v.payloadJson + "\n");
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-env",
      "--allow-net",
      SIGN,
      "--key",
      v.apiKey,
      "--exact",
      file,
    ],
  }).output();
  await Deno.remove(file);
  assert.equal(out.code, 0);
  assert.equal(new TextDecoder().decode(out.stdout).trim(), v.signedRequest);
});

Deno.test("deno task sign adds a fresh issuedAt and a nonce unless told --exact", async () => {
  const v = vectors.find((c: { name: string }) => c.name === "minimal");
  const file = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(file, v.payloadJson);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-env", SIGN, "--key", v.apiKey, file],
  }).output();
  await Deno.remove(file);
  assert.equal(out.code, 0);
  const encoded = new TextDecoder().decode(out.stdout).trim().split(".")[1];
  const signed = JSON.parse(
    new TextDecoder().decode(Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0))),
  );
  assert.ok(Math.abs(signed.issuedAt - Date.now() / 1000) < 60, "issuedAt is now");
  assert.match(signed.nonce, /^[A-Za-z0-9_-]{16,128}$/);
  assert.deepEqual(signed.context, JSON.parse(v.payloadJson).context, "the rest as given");
});

Deno.test("deno task sign without a key explains how to give one", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-env", SIGN],
    env: { PORTAL_API_KEY: "" },
  }).output();
  assert.equal(out.code, 2);
  assert.match(new TextDecoder().decode(out.stderr), /PORTAL_API_KEY/);
});

/** Runs tools/sign.ts on `file` with `key`, from `cwd` with INIT_CWD set to `initCwd`. */
function signFrom(cwd: string, initCwd: string, key: string, file: string, exact = true) {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-env",
      SIGN,
      "--key",
      key,
      ...exact ? ["--exact"] : [],
      file,
    ],
    cwd,
    env: { INIT_CWD: initCwd },
  }).output();
}

Deno.test("deno task sign reads a relative path from where the task was run (INIT_CWD)", async () => {
  const v = vectors.find((c: { name: string }) => c.name === "minimal");
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/launch.json`, v.payloadJson);
    // `deno task` runs the command in the repository's root and says where it was run.
    const out = await signFrom(
      new URL("../../", import.meta.url).pathname,
      dir,
      v.apiKey,
      "launch.json",
    );
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.equal(new TextDecoder().decode(out.stdout).trim(), v.signedRequest);
    // An INIT_CWD left over from elsewhere: the process's own directory is tried next.
    const stale = await signFrom(dir, "/nonexistent", v.apiKey, "launch.json");
    assert.equal(new TextDecoder().decode(stale.stdout).trim(), v.signedRequest);
    // A file that is not there: one line naming where it was looked for, no stack trace.
    const missing = await signFrom(dir, dir, v.apiKey, "nope.json", false);
    assert.equal(missing.code, 2);
    const said = new TextDecoder().decode(missing.stderr);
    assert.equal(
      said.trim(),
      `${dir}/nope.json: no such file. Give the launch payload's JSON file, or pipe it in.`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
