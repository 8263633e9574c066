import assert from "node:assert/strict";
import { IdleWatch } from "../../src/llm/idle_watch.ts";

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
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { IdleWatch } from ${
        JSON.stringify(new URL("../../src/llm/idle_watch.ts", import.meta.url))
      };
      const watch = new IdleWatch(600_000, () => console.log("idle"));
      watch.touch();
      watch.stop();
      console.log("watched and stopped");`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // A watch that still held the process would keep it ten minutes: give up
  // long before that, and say so.
  const giveUp = setTimeout(() => child.kill(), 20_000);
  const output = await child.output();
  clearTimeout(giveUp);
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  assert.equal(
    new TextDecoder().decode(output.stdout),
    "watched and stopped\n",
  );
});
