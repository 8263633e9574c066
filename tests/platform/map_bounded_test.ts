import assert from "node:assert/strict";
import { mapBounded } from "../../src/platform/map_bounded.ts";

Deno.test("mapBounded() keeps order and never has more than the limit in flight", async () => {
  let inFlight = 0;
  let peak = 0;
  const items = Array.from({ length: 40 }, (_, i) => i);
  const results = await mapBounded(items, 5, async (item) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    // Later items finish first: order must come from the index, not completion.
    await new Promise((resolve) => setTimeout(resolve, (40 - item) % 7));
    inFlight--;
    return item * 2;
  });
  assert.deepEqual(results, items.map((item) => item * 2));
  assert.equal(peak, 5);
  assert.deepEqual(await mapBounded([], 5, () => Promise.resolve(1)), []);
});

Deno.test("mapBounded() rejects with the first failure", async () => {
  await assert.rejects(
    mapBounded(
      [1, 2, 3],
      2,
      (item) =>
        item === 2 ? Promise.reject(new Error("two")) : Promise.resolve(item),
    ),
    /two/,
  );
});
