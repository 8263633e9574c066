import assert from "node:assert/strict";
import { oneAtATime } from "../../src/platform/one_at_a_time.ts";

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

Deno.test("oneAtATime() runs the works of one key in turn, and other keys alongside", async () => {
  const log: string[] = [];
  const work = (name: string, fail = false) => async () => {
    log.push(`${name} start`);
    await tick();
    log.push(`${name} end`);
    if (fail) throw new Error(name);
    return name;
  };
  const results = await Promise.allSettled([
    oneAtATime("a", work("a1")),
    oneAtATime("a", work("a2", true)),
    oneAtATime("b", work("b1")),
    oneAtATime("a", work("a3")),
  ]);
  assert.deepEqual(results.map((r) => r.status), [
    "fulfilled",
    "rejected",
    "fulfilled",
    "fulfilled",
  ]);
  // a1, a2, a3 never overlap (a failure does not hold the next back); b1
  // starts before a1 ends.
  const a = log.filter((line) => line.startsWith("a"));
  assert.deepEqual(a, [
    "a1 start",
    "a1 end",
    "a2 start",
    "a2 end",
    "a3 start",
    "a3 end",
  ]);
  assert.ok(log.indexOf("b1 start") < log.indexOf("a1 end"));
});
