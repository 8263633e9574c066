import assert from "node:assert/strict";
import { EndpointError, resolveEndpoint } from "../../src/llm/endpoint.ts";
import { PROVIDERS } from "../../src/llm/providers.ts";

const noEnv = () => undefined;

Deno.test("the provider table: base URL, key variable and structured output per provider", () => {
  const table = Object.values(PROVIDERS).filter((p) =>
    p.name !== "openai_compat"
  ).map((provider) => {
    const endpoint = resolveEndpoint(
      { provider: provider.name, name: "m" },
      {},
      noEnv,
    );
    return [
      provider.name,
      endpoint.baseUrl,
      endpoint.apiKeyEnv ?? null,
      endpoint.keyRequired,
      endpoint.structuredOutput,
    ];
  });
  assert.deepEqual(table, [
    [
      "openai",
      "https://api.openai.com/v1",
      "OPENAI_API_KEY",
      true,
      "json_schema_strict",
    ],
    [
      "anthropic",
      "https://api.anthropic.com/v1",
      "ANTHROPIC_API_KEY",
      true,
      "none",
    ],
    [
      "google",
      "https://generativelanguage.googleapis.com/v1beta/openai",
      "GEMINI_API_KEY",
      true,
      "json_schema",
    ],
    [
      "openrouter",
      "https://openrouter.ai/api/v1",
      "OPENROUTER_API_KEY",
      true,
      "json_schema_strict",
    ],
    ["ollama", "http://localhost:11434/v1", null, false, "json_schema"],
    ["llamacpp", "http://127.0.0.1:8080/v1", null, false, "json_schema"],
    [
      "cerebras",
      "https://api.cerebras.ai/v1",
      "CEREBRAS_API_KEY",
      true,
      "json_schema_strict",
    ],
    [
      "deepseek",
      "https://api.deepseek.com/v1",
      "DEEPSEEK_API_KEY",
      true,
      "json_object",
    ],
  ]);
});

Deno.test("resolveEndpoint() honours jp's provider config and OPENAI_BASE_URL", () => {
  const config = {
    providers: {
      llm: {
        ollama: { base_url: "http://gpu-box:11434/" },
        openai: { api_key_env: "WORK_OPENAI_KEY" },
        openrouter: { app_name: "mine", app_referrer: "https://example.test" },
      },
    },
  };
  assert.equal(
    resolveEndpoint({ provider: "ollama", name: "m" }, config, noEnv).baseUrl,
    "http://gpu-box:11434/v1",
  );
  assert.equal(
    resolveEndpoint({ provider: "ollama", name: "m" }, config, noEnv).rootUrl,
    "http://gpu-box:11434",
  );
  const openai = resolveEndpoint(
    { provider: "openai", name: "m" },
    config,
    (name) =>
      ({
        OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
        WORK_OPENAI_KEY: "sk",
      } as Record<string, string>)[name],
  );
  assert.equal(openai.baseUrl, "http://127.0.0.1:9/v1");
  assert.equal(openai.apiKeyEnv, "WORK_OPENAI_KEY");
  assert.equal(openai.apiKeySet, true);
  assert.deepEqual(
    resolveEndpoint({ provider: "openrouter", name: "m" }, config, noEnv)
      .headers,
    {
      "X-Title": "mine",
      "HTTP-Referer": "https://example.test",
    },
  );
});

Deno.test("openai_compat takes any endpoint from base_url and needs one", () => {
  const config = {
    providers: {
      llm: {
        openai_compat: {
          base_url: "http://127.0.0.1:1234/v1",
          api_key_env: "LMSTUDIO_KEY",
          structured_output: "json_object",
        },
      },
    },
  };
  const endpoint = resolveEndpoint(
    { provider: "openai_compat", name: "qwen" },
    config,
    noEnv,
  );
  assert.equal(endpoint.baseUrl, "http://127.0.0.1:1234/v1");
  assert.equal(endpoint.apiKeyEnv, "LMSTUDIO_KEY");
  assert.equal(endpoint.keyRequired, false);
  assert.equal(endpoint.structuredOutput, "json_object");
  assert.throws(
    () => resolveEndpoint({ provider: "openai_compat", name: "q" }, {}, noEnv),
    (e) =>
      e instanceof EndpointError &&
      e.message ===
        'Provider "openai_compat" needs a base URL: set providers.llm.openai_compat.base_url',
  );
});
