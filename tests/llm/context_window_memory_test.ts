import assert from "node:assert/strict";
import { join } from "node:path";
import {
  CONTEXT_WINDOW_MEMORY_MS,
  rememberedContextWindow,
} from "../../src/llm/context_window_memory.ts";
import { resolveSummaryModel } from "../../src/summary/summary_model.ts";
import { FakeLlm } from "../support/fake_llm.ts";

const QUESTION = {
  provider: "ollama",
  baseUrl: "http://user:secret@127.0.0.1:11434/v1",
  model: "llama3.2:3b",
};

/** Runs `test` with a data directory of its own (`JPT_DATA_DIR`), removed after. */
async function withDataDir(
  test: (
    env: (name: string) => string | undefined,
    dir: string,
  ) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await test((name) => name === "JPT_DATA_DIR" ? dir : undefined, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** An ask that answers `tokens` and counts how often it was called. */
function counting(tokens: number | null | undefined) {
  const ask = () => {
    ask.calls++;
    return Promise.resolve(tokens);
  };
  ask.calls = 0;
  return ask;
}

Deno.test("rememberedContextWindow() asks once an hour per model and endpoint", () =>
  withDataDir(async (env, dir) => {
    const ask = counting(32768);
    const now = 1_800_000_000_000;
    assert.equal(await rememberedContextWindow(env, QUESTION, ask, now), 32768);
    assert.equal(
      await rememberedContextWindow(env, QUESTION, counting(1), now + 1000),
      32768,
    );
    assert.equal(ask.calls, 1);
    // Another model, another endpoint: asked.
    const other = counting(8192);
    assert.equal(
      await rememberedContextWindow(
        env,
        { ...QUESTION, model: "qwen3:4b" },
        other,
        now,
      ),
      8192,
    );
    assert.equal(
      await rememberedContextWindow(
        env,
        { ...QUESTION, baseUrl: "http://127.0.0.1:11435/v1" },
        other,
        now,
      ),
      8192,
    );
    assert.equal(other.calls, 2);
    // An hour later, or with the clock set back: asked again.
    const later = counting(65536);
    assert.equal(
      await rememberedContextWindow(
        env,
        QUESTION,
        later,
        now + CONTEXT_WINDOW_MEMORY_MS,
      ),
      65536,
    );
    assert.equal(
      await rememberedContextWindow(env, QUESTION, later, now - 1),
      65536,
    );
    assert.equal(later.calls, 2);
    // No URL (with its credentials) and no model name reaches the file.
    const text = await Deno.readTextFile(join(dir, "context_windows.json"));
    assert.doesNotMatch(text, /secret|127\.0\.0\.1|llama|qwen/);
    assert.equal(JSON.parse(text).version, 1);
  }));

Deno.test("rememberedContextWindow() remembers a provider that answered without telling, not one that did not answer", () =>
  withDataDir(async (env) => {
    const unreachable = counting(undefined);
    assert.equal(
      await rememberedContextWindow(env, QUESTION, unreachable),
      undefined,
    );
    assert.equal(
      await rememberedContextWindow(env, QUESTION, unreachable),
      undefined,
    );
    assert.equal(unreachable.calls, 2);
    const silent = counting(null);
    assert.equal(await rememberedContextWindow(env, QUESTION, silent), null);
    assert.equal(await rememberedContextWindow(env, QUESTION, silent), null);
    assert.equal(silent.calls, 1);
    // Without a data directory, every run asks.
    const homeless = counting(4096);
    await rememberedContextWindow(() => undefined, QUESTION, homeless);
    await rememberedContextWindow(() => undefined, QUESTION, homeless);
    assert.equal(homeless.calls, 2);
  }));

Deno.test("rememberedContextWindow() neither uses nor replaces a file it did not write", () =>
  withDataDir(async (env, dir) => {
    const path = join(dir, "context_windows.json");
    for (
      const damaged of [
        '{"version":1,"windows":{',
        '{"version":2,"windows":{}}',
        `{"version":1,"windows":{"${
          "a".repeat(64)
        }":{"tokens":-5,"asked_at":1}}}`,
      ]
    ) {
      await Deno.writeTextFile(path, damaged);
      const ask = counting(32768);
      assert.equal(await rememberedContextWindow(env, QUESTION, ask), 32768);
      assert.equal(await rememberedContextWindow(env, QUESTION, ask), 32768);
      assert.equal(ask.calls, 2);
      assert.equal(await Deno.readTextFile(path), damaged);
    }
    // A directory (or a FIFO) where the file should be: asked, left alone.
    await Deno.remove(path);
    await Deno.mkdir(path);
    const ask = counting(32768);
    assert.equal(await rememberedContextWindow(env, QUESTION, ask), 32768);
    assert.equal(await rememberedContextWindow(env, QUESTION, ask), 32768);
    assert.equal(ask.calls, 2);
    assert.ok((await Deno.stat(path)).isDirectory);
  }));

Deno.test("resolveSummaryModel() asks Ollama once across runs", () =>
  withDataDir(async (env) => {
    await using server = FakeLlm.start((request) =>
      request.path === "/api/show"
        ? { json: { parameters: "num_ctx 16384" } }
        : { status: 404, text: "no" }
    );
    const config = {
      conversation: {
        turn_summary: { generate: { model: { id: "ollama/m" } } },
      },
      providers: { llm: { ollama: { base_url: server.url } } },
    };
    // Each resolution stands for a run: no in-memory map is shared.
    for (let run = 0; run < 3; run++) {
      const resolved = await resolveSummaryModel(config, env);
      assert.deepEqual(resolved.contextWindow, {
        tokens: 16384,
        source: "provider",
      });
    }
    assert.equal(
      server.requests.filter((request) => request.path === "/api/show").length,
      1,
    );
    // A provider that does not know the model is asked again next run.
    await using missing = FakeLlm.start(() => ({ status: 404, text: "no" }));
    const elsewhere = {
      ...config,
      providers: { llm: { ollama: { base_url: missing.url } } },
    };
    for (let run = 0; run < 2; run++) {
      assert.equal(
        (await resolveSummaryModel(elsewhere, env)).contextWindow.source,
        "default",
      );
    }
    assert.equal(missing.requests.length, 2);
    // Config still wins over what is remembered.
    const configured = await resolveSummaryModel({
      ...config,
      conversation: {
        turn_summary: {
          generate: { model: { id: "ollama/m", context_window: 2048 } },
        },
      },
    }, env);
    assert.deepEqual(configured.contextWindow, {
      tokens: 2048,
      source: "config",
    });
  }));
