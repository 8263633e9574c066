import assert from "node:assert/strict";
import { evalToExit } from "../support/eval_to_exit.ts";
import { IdleWatch } from "../../src/platform/idle_watch.ts";

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("an IdleWatch fires once the silence lasts its time, not while it is touched", async () => {
  let fired = 0;
  let onFire = () => {};
  const firing = new Promise<void>((resolve) => onFire = resolve);
  const watch = new IdleWatch(400, () => {
    fired++;
    onFire();
  });
  // Touched far more often than its time (the watch re-arms for the rest
  // each time its deadline passes): never idle.
  for (let i = 0; i < 30; i++) {
    await wait(20);
    watch.touch();
  }
  assert.equal(fired, 0, "touched every 20 ms, it went idle");
  await firing;
  await wait(450);
  assert.equal(fired, 1, "it fires once");
});

Deno.test("a stopped IdleWatch never fires and does not keep the process alive", async () => {
  let fired = false;
  const stopped = new IdleWatch(20, () => fired = true);
  stopped.stop();
  await wait(60);
  assert.equal(fired, false);
  // A watch that still held the process would keep it ten minutes.
  const { code, stdout, stderr } = await evalToExit(
    `import { IdleWatch } from ${
      JSON.stringify(
        new URL("../../src/platform/idle_watch.ts", import.meta.url),
      )
    };
    const watch = new IdleWatch(600_000, () => console.log("idle"));
    watch.touch();
    watch.stop();
    console.log("watched and stopped");`,
  );
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "watched and stopped\n");
});
