import assert from "node:assert/strict";
import { Slots } from "../../src/platform/slots.ts";

Deno.test("Slots runs at most its size at once, the others in the order they asked, and a slot given back twice counts once", async () => {
  const slots = new Slots(2);
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const gates = Array.from({ length: 5 }, () => Promise.withResolvers<void>());
  const work = gates.map(async (gate, i) => {
    const giveBack = await slots.take();
    started.push(i);
    running++;
    most = Math.max(most, running);
    await gate.promise;
    running--;
    giveBack();
    giveBack();
  });
  await Promise.resolve();
  assert.deepEqual(started, [0, 1]);
  for (const gate of gates) {
    gate.resolve();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  await Promise.all(work);
  assert.deepEqual(started, [0, 1, 2, 3, 4]);
  assert.equal(most, 2);
  // Everything given back: two can start at once again.
  const a = await slots.take();
  const b = await slots.take();
  let third = false;
  const c = slots.take().then((give) => {
    third = true;
    return give;
  });
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(third, false);
  a();
  (await c)();
  b();
});
