import assert from "node:assert/strict";
import { resolveEndpoint } from "../../src/llm/endpoint.ts";
import { statePath, updateState } from "../../src/summary/batch_state.ts";
import { batchStatePath } from "../../src/summary/batch_state_path.ts";
import { pendingBatches } from "../../src/summary/pending_batches.ts";

Deno.test("pendingBatches() reads what pending batches cover, and nothing without a state file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const env = (name: string) => name === "JPT_DATA_DIR" ? dir : undefined;
    const root = "/home/me/project";
    assert.equal(await batchStatePath(env, root), await statePath(env, root));
    assert.deepEqual(await pendingBatches(env, root), new Map());
    assert.deepEqual(await pendingBatches(() => undefined, root), new Map());
    const { apiKeySet: _, ...endpoint } = resolveEndpoint(
      { provider: "openai", name: "gpt-5-mini" },
      {},
      () => undefined,
    );
    const turn = (key: string, index: number) => ({
      id: `t${index}`,
      event_id: null,
      index,
      fingerprint: "f".repeat(64),
      content_key: key,
    });
    await updateState(await statePath(env, root), (batches) => {
      batches.push({
        id: "batch_1",
        model: "openai/gpt-5-mini",
        endpoint,
        submitted: "2026-12-01T00:00:00.000Z",
        requests: {
          r1: {
            conversation: "17800000000",
            turns: [turn("a", 0), turn("b", 1)],
          },
          r2: { conversation: "17800000001", turns: [turn("c", 0)] },
        },
      });
    });
    assert.deepEqual(
      await pendingBatches(env, root),
      new Map([["17800000000", new Set(["a", "b"])], [
        "17800000001",
        new Set(["c"]),
      ]]),
    );
    // A damaged file is left for `--resume` to report: nothing is covered.
    await Deno.writeTextFile(await statePath(env, root), "{");
    assert.deepEqual(await pendingBatches(env, root), new Map());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
