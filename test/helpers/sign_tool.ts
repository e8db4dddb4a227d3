/** `deno task sign` (tools/sign.ts) as a child process, for the tests of what it writes. */

const SIGN = new URL("../../tools/sign.ts", import.meta.url).pathname;

/** Runs the signer with `args` on `payload`, written to a file it is given last. */
export async function runSign(args: string[], payload: unknown): Promise<Deno.CommandOutput> {
  const file = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(file, JSON.stringify(payload));
  try {
    return await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-read", "--allow-write", "--allow-env", SIGN, ...args, file],
    }).output();
  } finally {
    await Deno.remove(file);
  }
}
