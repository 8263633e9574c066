import assert from "node:assert/strict";
import { EnvConfigError, envOperations } from "../../src/config/env_layer.ts";

Deno.test("envOperations() maps JP_CFG_* names onto known fields", () => {
  const operations = envOperations({
    JP_CFG_ASSISTANT_MODEL_ID: "anthropic/claude-haiku-4-5",
    JP_CFG_CONVERSATION_TITLE_GENERATE_AUTO: "false",
    JP_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_BATCH_SIZE: "7",
    JP_CFG_PROVIDERS_LLM_OPENAI_COMPAT_BASE_URL: "http://127.0.0.1:1234/v1",
    JP_CFG_PROVIDERS_LLM_ALIASES_HAIKU: "anthropic/claude-haiku-4-5",
    JP_CFG_ASSISTANT_MODEL_PARAMETERS_STOP_WORDS: "+END",
    JP_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_MODEL:
      ':{"id": "ollama/llama3.2:3b"}',
    JP_CFG_ASSISTANT_NAME: "\\:literal",
    PATH: "/usr/bin",
  });
  const byName = Object.fromEntries(
    operations.map(({ name, operation }) => [name, operation]),
  );
  assert.equal(operations.length, 8);
  assert.deepEqual(byName.JP_CFG_ASSISTANT_MODEL_ID, {
    kind: "set",
    path: ["assistant", "model", "id"],
    value: "anthropic/claude-haiku-4-5",
  });
  assert.deepEqual(
    byName.JP_CFG_CONVERSATION_TITLE_GENERATE_AUTO?.kind === "set" &&
      byName.JP_CFG_CONVERSATION_TITLE_GENERATE_AUTO.value,
    false,
  );
  assert.deepEqual(
    byName.JP_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_BATCH_SIZE,
    {
      kind: "set",
      path: ["conversation", "turn_summary", "generate", "batch_size"],
      value: 7,
    },
  );
  assert.deepEqual(
    (byName.JP_CFG_PROVIDERS_LLM_OPENAI_COMPAT_BASE_URL as { path: string[] })
      .path,
    ["providers", "llm", "openai_compat", "base_url"],
  );
  assert.deepEqual(
    (byName.JP_CFG_PROVIDERS_LLM_ALIASES_HAIKU as { path: string[] }).path,
    ["providers", "llm", "aliases", "haiku"],
  );
  assert.deepEqual(byName.JP_CFG_ASSISTANT_MODEL_PARAMETERS_STOP_WORDS, {
    kind: "append",
    path: ["assistant", "model", "parameters", "stop_words"],
    value: ["END"],
  });
  assert.deepEqual(byName.JP_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_MODEL, {
    kind: "set",
    path: ["conversation", "turn_summary", "generate", "model"],
    value: { id: "ollama/llama3.2:3b" },
  });
  assert.deepEqual(byName.JP_CFG_ASSISTANT_NAME, {
    kind: "set",
    path: ["assistant", "name"],
    value: ":literal",
  });
});

Deno.test("envOperations() names the variable on a bad value", () => {
  assert.throws(
    () =>
      envOperations({
        JP_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_AUTO: "maybe",
      }),
    (error) =>
      error instanceof EnvConfigError &&
      /JP_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_AUTO: Invalid value for "conversation.turn_summary.generate.auto": expected a boolean/
        .test(error.message),
  );
  assert.throws(
    () => envOperations({ JP_CFG_STYLE: ":{nope" }),
    /JP_CFG_STYLE/,
  );
});
