import assert from "node:assert/strict";
import { resolveRoleModel } from "../../src/config/role_models.ts";
import {
  excludesReasoning,
  parseReasoning,
  requestParams,
} from "../../src/llm/request_params.ts";

Deno.test("parseReasoning() reads every form jp accepts", () => {
  assert.deepEqual(parseReasoning("off"), { kind: "off" });
  assert.deepEqual(parseReasoning("auto"), { kind: "auto" });
  assert.deepEqual(parseReasoning("xhigh"), {
    kind: "effort",
    effort: "xhigh",
    exclude: false,
  });
  assert.deepEqual(parseReasoning(2048), {
    kind: "budget",
    tokens: 2048,
    exclude: false,
  });
  assert.deepEqual(parseReasoning({ effort: "low", exclude: true }), {
    kind: "effort",
    effort: "low",
    exclude: true,
  });
  assert.equal(parseReasoning("bogus"), undefined);
  assert.equal(parseReasoning(undefined), undefined);
});

Deno.test("requestParams() maps parameters per provider", () => {
  const params = (
    id: string,
    parameters: Record<string, unknown>,
    role: "assistant" | "turn_summary" = "assistant",
  ) =>
    requestParams(
      resolveRoleModel({ assistant: { model: { id, parameters } } }, role),
    );
  assert.deepEqual(
    params("openai/gpt-5-mini", {
      max_tokens: 100,
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      stop_words: ["END"],
      other: { seed: 7 },
      user: "me",
    }),
    {
      user: "me",
      seed: 7,
      max_completion_tokens: 100,
      temperature: 0.5,
      top_p: 0.9,
      stop: ["END"],
    },
  );
  assert.deepEqual(
    params("ollama/llama3.2:3b", { max_tokens: 100, top_k: 40 }),
    { max_tokens: 100, top_k: 40 },
  );
  assert.deepEqual(params("ollama/qwen3", { reasoning: "high" }), {
    reasoning_effort: "high",
  }, "configured reasoning is sent");
  assert.deepEqual(
    params("ollama/llama3.2:3b", {}, "turn_summary"),
    {},
    "the background default is not sent to a local model",
  );
  assert.deepEqual(
    params("openai/gpt-4o-mini", {}, "turn_summary"),
    {},
    "nor to an OpenAI model that does not reason",
  );
  assert.deepEqual(params("openai/o4-mini", {}, "turn_summary"), {
    reasoning_effort: "low",
  });
  assert.deepEqual(params("openrouter/x/y", {}, "turn_summary"), {
    reasoning: { effort: "low", exclude: true },
  });
  assert.deepEqual(params("openrouter/x/y", { reasoning: 512 }), {
    reasoning: { max_tokens: 512, exclude: false },
  });
  assert.deepEqual(params("openrouter/x/y", { reasoning: "off" }), {
    reasoning: { enabled: false },
  });
});

Deno.test("excludesReasoning() follows exclude and off", () => {
  const model = (reasoning: unknown) =>
    resolveRoleModel({
      assistant: { model: { id: "ollama/m", parameters: { reasoning } } },
    }, "assistant");
  assert.equal(
    excludesReasoning(model({ effort: "low", exclude: true })),
    true,
  );
  assert.equal(excludesReasoning(model("off")), true);
  assert.equal(excludesReasoning(model("high")), false);
  assert.equal(
    excludesReasoning(
      resolveRoleModel(
        { assistant: { model: { id: "ollama/m" } } },
        "turn_summary",
      ),
    ),
    true,
  );
});
