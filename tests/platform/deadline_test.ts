import assert from "node:assert/strict";
import { evalToExit } from "../support/eval_to_exit.ts";
import { Deadline } from "../../src/platform/deadline.ts";

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
  // A deadline that still held the process would keep it ten minutes.
  const { code, stdout, stderr } = await evalToExit(
    `import { Deadline } from ${
      JSON.stringify(new URL("../../src/platform/deadline.ts", import.meta.url))
    };
    const deadline = new Deadline(600_000);
    const any = AbortSignal.any([deadline.signal]);
    any.addEventListener("abort", () => {});
    deadline.cancel();
    console.log("armed and cancelled");`,
  );
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "armed and cancelled\n");
});
