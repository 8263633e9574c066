import assert from "node:assert/strict";
import { resolveRoleModel } from "../../src/config/role_models.ts";
import {
  contextWindowOf,
  DEFAULT_CONTEXT_WINDOW,
} from "../../src/llm/context_window.ts";
import { resolveEndpoint } from "../../src/llm/endpoint.ts";
import { FakeLlm } from "../support/fake_llm.ts";

Deno.test("contextWindowOf() prefers config, then the provider, then the default", async () => {
  await using server = FakeLlm.start((request) =>
    request.path === "/api/show"
      ? {
        json: {
          parameters: "stop <eot>\nnum_ctx 32768",
          model_info: { "llama.context_length": 131072 },
        },
      }
      : request.path === "/api/v1/models"
      ? { json: { data: [{ id: "x/y", context_length: 200000 }] } }
      : { status: 404, text: "no" }
  );
  const config = {
    assistant: { model: { id: "ollama/llama3.2:3b" } },
    providers: {
      llm: {
        ollama: { base_url: server.url },
        openrouter: { base_url: server.url },
        llamacpp: { base_url: server.url },
      },
    },
  };
  const window = async (extra: Record<string, unknown>) => {
    const merged = {
      ...config,
      assistant: { model: { ...config.assistant.model, ...extra } },
    };
    const model = resolveRoleModel(merged, "assistant");
    return await contextWindowOf(
      model,
      resolveEndpoint(model.id, merged, () => undefined),
    );
  };
  assert.deepEqual(await window({ context_window: 4096 }), {
    tokens: 4096,
    source: "config",
  });
  assert.deepEqual(await window({}), { tokens: 32768, source: "provider" });
  assert.equal(server.requests[0]!.body!.model, "llama3.2:3b");
  assert.deepEqual(await window({ id: "openrouter/x/y" }), {
    tokens: 200000,
    source: "provider",
  });
  assert.deepEqual(await window({ id: "llamacpp/m" }), {
    tokens: DEFAULT_CONTEXT_WINDOW,
    source: "default",
  });
});

Deno.test("contextWindowOf() falls back to the default when the provider is unreachable", async () => {
  const model = resolveRoleModel(
    { assistant: { model: { id: "ollama/m" } } },
    "assistant",
  );
  const config = {
    providers: { llm: { ollama: { base_url: "http://127.0.0.1:9" } } },
  };
  assert.deepEqual(
    await contextWindowOf(
      model,
      resolveEndpoint(model.id, config, () => undefined),
    ),
    {
      tokens: DEFAULT_CONTEXT_WINDOW,
      source: "default",
    },
  );
});

Deno.test("hosted models take their listed window (the longest prefix of their family), config still wins, unlisted ones the default", async () => {
  const windowOf = async (id: string, extra: Record<string, unknown> = {}) => {
    const config = { assistant: { model: { id, ...extra } } };
    const model = resolveRoleModel(config, "assistant");
    return await contextWindowOf(
      model,
      resolveEndpoint(model.id, config, () => undefined),
    );
  };
  const table = (tokens: number) => ({ tokens, source: "table" });
  assert.deepEqual(
    await windowOf("anthropic/claude-opus-4-6"),
    table(200_000),
  );
  assert.deepEqual(
    await windowOf("anthropic/claude-sonnet-4-5-20250929"),
    table(200_000),
  );
  assert.deepEqual(await windowOf("openai/gpt-4o-mini"), table(128_000));
  assert.deepEqual(await windowOf("openai/gpt-4.1-nano"), table(1_047_576));
  assert.deepEqual(await windowOf("openai/gpt-4-0613"), table(8_192));
  assert.deepEqual(await windowOf("openai/o1-mini"), table(128_000));
  assert.deepEqual(await windowOf("google/gemini-2.5-flash"), table(1_048_576));
  assert.deepEqual(
    await windowOf("anthropic/claude-opus-4-6", { context_window: 50_000 }),
    { tokens: 50_000, source: "config" },
  );
  assert.deepEqual(await windowOf("openai/some-future-model"), {
    tokens: DEFAULT_CONTEXT_WINDOW,
    source: "default",
  });
});
