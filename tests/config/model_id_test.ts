import assert from "node:assert/strict";
import {
  ModelIdError,
  parseModelId,
  resolveModelId,
} from "../../src/config/model_id.ts";

Deno.test("resolveModelId() splits provider/name at the first slash and trims", () => {
  assert.deepEqual(resolveModelId("ollama/llama3.2:3b"), {
    provider: "ollama",
    name: "llama3.2:3b",
  });
  assert.deepEqual(resolveModelId(" openrouter / anthropic/claude-3.5 "), {
    provider: "openrouter",
    name: "anthropic/claude-3.5",
  });
  assert.deepEqual(resolveModelId({ provider: "openai", name: "gpt-5-mini" }), {
    provider: "openai",
    name: "gpt-5-mini",
  });
  assert.equal(parseModelId("nope"), undefined);
});

Deno.test("resolveModelId() follows alias chains", () => {
  const aliases = {
    fast: "cheap",
    cheap: { provider: "ollama", name: "qwen3:4b" },
    google: "google/gemini-2.5-flash",
  };
  assert.deepEqual(resolveModelId("fast", aliases), {
    provider: "ollama",
    name: "qwen3:4b",
  });
  assert.deepEqual(resolveModelId("google", aliases), {
    provider: "google",
    name: "gemini-2.5-flash",
  });
});

Deno.test("resolveModelId() reports cycles, unknown aliases and unknown providers", () => {
  assert.throws(
    () => resolveModelId("a", { a: "b", b: "a" }),
    (e) =>
      e instanceof ModelIdError &&
      e.message === "Model alias cycle: a -> b -> a",
  );
  assert.throws(
    () => resolveModelId("a", { a: "b" }),
    /Model alias "b" \(from "a"\) is not defined/,
  );
  assert.throws(
    () => resolveModelId("mystery"),
    /Unknown model "mystery": not "provider\/name" and not an alias/,
  );
  assert.throws(
    () => resolveModelId("acme/model-1"),
    /Unknown provider "acme" in model id "acme\/model-1" \(known: openai, /,
  );
  assert.throws(
    () => resolveModelId({ provider: "acme", name: "x" }),
    /Unknown provider "acme"/,
  );
  assert.throws(() => resolveModelId(42), ModelIdError);
});
