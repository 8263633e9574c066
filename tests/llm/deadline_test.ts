import assert from "node:assert/strict";
import { Deadline } from "../../src/llm/deadline.ts";

Deno.test("a Deadline aborts its signal when its time passes, and not once cancelled", async () => {
  const cancelled = new Deadline(10);
  cancelled.cancel();
  const expiring = new Deadline(30);
  await new Promise((resolve) =>
    expiring.signal.addEventListener("abort", resolve, { once: true })
  );
  assert.equal(expiring.signal.aborted, true);
  // The shorter deadline's time passed too: cancelled, it never fired.
  assert.equal(cancelled.signal.aborted, false);
});

Deno.test("a cancelled Deadline does not keep the process alive", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { Deadline } from ${
        JSON.stringify(new URL("../../src/llm/deadline.ts", import.meta.url))
      };
      const deadline = new Deadline(600_000);
      const any = AbortSignal.any([deadline.signal]);
      any.addEventListener("abort", () => {});
      deadline.cancel();
      console.log("armed and cancelled");`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // A deadline that still held the process would keep it ten minutes:
  // give up long before that, and say so.
  const giveUp = setTimeout(() => child.kill(), 20_000);
  const output = await child.output();
  clearTimeout(giveUp);
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  assert.equal(
    new TextDecoder().decode(output.stdout),
    "armed and cancelled\n",
  );
});
