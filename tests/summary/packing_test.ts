import assert from "node:assert/strict";
import type { PreparedTurn } from "../../src/summary/candidates.ts";
import {
  estimateTokens,
  packTurns,
  requestBudget,
} from "../../src/summary/packing.ts";

const turn = (index: number, tokens: number): PreparedTurn => ({
  id: `t${index}`,
  index,
  transcript: "",
  fingerprint: "",
  tokens,
});

Deno.test("estimateTokens() counts a token per three UTF-8 bytes, rounding up", () => {
  assert.equal(estimateTokens(""), 0);
  assert.equal(estimateTokens("abcd"), 2);
  assert.equal(estimateTokens("é"), 1);
  assert.equal(estimateTokens("日本語"), 3);
  assert.equal(estimateTokens("😀😀😀"), 4);
});

Deno.test("packTurns() packs newest first up to batch_size", () => {
  const turns = [0, 1, 2, 3, 4, 5, 6].map((i) => turn(i, 10));
  const { batch, rest, oversized } = packTurns(turns, {
    contextWindow: 8192,
    batchSize: 5,
  });
  assert.deepEqual(batch.map((t) => t.index), [6, 5, 4, 3, 2]);
  assert.deepEqual(rest.map((t) => t.index), [1, 0]);
  assert.deepEqual(oversized, []);
});

Deno.test("packTurns() excludes turns that alone exceed the budget, and stops at the budget", () => {
  const window = 2000;
  const budget = requestBudget(window, 3);
  const turns = [
    turn(0, 10),
    turn(1, budget - 50),
    turn(2, budget + 1),
    turn(3, 100),
  ];
  const { batch, rest, oversized } = packTurns(turns, {
    contextWindow: window,
    batchSize: 3,
  });
  assert.deepEqual(oversized.map((t) => t.index), [2], "never sent");
  assert.deepEqual(
    batch.map((t) => t.index),
    [3],
    "turn 1 would pass the budget, so packing stops",
  );
  assert.deepEqual(
    rest.map((t) => t.index),
    [1, 0],
    "left for the next request, newest first",
  );
  const next = packTurns(rest, { contextWindow: window, batchSize: 3 });
  assert.deepEqual(next.batch.map((t) => t.index), [1, 0]);
});
