import assert from "node:assert/strict";
import { resolveRoleModel } from "../../src/config/role_models.ts";
import { ModelIdError } from "../../src/config/model_id.ts";

const LOW = { effort: "low", exclude: true };

Deno.test("the model resolution chain, as a table", () => {
  const assistant = {
    model: {
      id: "openai/x",
      parameters: { reasoning: "high", temperature: 0.2 },
    },
  };
  const title = { id: "ollama/title", parameters: {} };
  const summary = { id: "llamacpp/summary", parameters: { reasoning: "off" } };
  const cases = [
    {
      config: { assistant },
      expect: { title: ["openai/x", LOW], turn_summary: ["openai/x", LOW] },
    },
    {
      config: {
        assistant,
        conversation: { title: { generate: { model: title } } },
      },
      expect: {
        title: ["ollama/title", LOW],
        turn_summary: ["ollama/title", LOW],
      },
    },
    {
      config: {
        assistant,
        conversation: {
          title: { generate: { model: title } },
          turn_summary: { generate: { model: summary } },
        },
      },
      expect: {
        title: ["ollama/title", LOW],
        turn_summary: ["llamacpp/summary", "off"],
      },
    },
    {
      config: {
        assistant,
        conversation: { turn_summary: { generate: { model: summary } } },
      },
      expect: {
        title: ["openai/x", LOW],
        turn_summary: ["llamacpp/summary", "off"],
      },
    },
  ];
  for (const { config, expect } of cases) {
    const a = resolveRoleModel(config, "assistant");
    assert.equal(`${a.id.provider}/${a.id.name}`, "openai/x");
    assert.equal(
      a.parameters.reasoning,
      "high",
      "the assistant keeps its own parameters",
    );
    for (const role of ["title", "turn_summary"] as const) {
      const model = resolveRoleModel(config, role);
      assert.equal(
        `${model.id.provider}/${model.id.name}`,
        expect[role][0],
        `${role} of ${JSON.stringify(config)}`,
      );
      assert.deepEqual(
        model.parameters.reasoning,
        expect[role][1],
        `${role} reasoning`,
      );
      if (model.source === "assistant.model.id") {
        assert.equal(
          model.parameters.temperature,
          undefined,
          "the fallback starts from default parameters",
        );
      }
    }
  }
});

Deno.test("resolveRoleModel() uses aliases and reports a missing model", () => {
  const config = {
    assistant: { model: { id: "fast" } },
    providers: { llm: { aliases: { fast: "ollama/qwen3:4b" } } },
  };
  assert.deepEqual(resolveRoleModel(config, "turn_summary").id, {
    provider: "ollama",
    name: "qwen3:4b",
  });
  assert.throws(
    () => resolveRoleModel({}, "assistant"),
    (e) =>
      e instanceof ModelIdError && /set assistant\.model\.id/.test(e.message),
  );
  assert.throws(
    () =>
      resolveRoleModel(
        { assistant: { model: { id: "nope/x" } } },
        "turn_summary",
      ),
    /assistant\.model\.id: Unknown provider "nope"/,
  );
});
