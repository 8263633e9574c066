import assert from "node:assert/strict";
import { createClient, MissingApiKeyError } from "../../src/llm/client.ts";
import { resolveEndpoint } from "../../src/llm/endpoint.ts";
import { chatCompletion, FakeLlm } from "../support/fake_llm.ts";
import { OPENROUTER_TEST_KEY, openRouterAt } from "../support/endpoints.ts";

Deno.test("createClient() (the Batch API's full SDK client) sends requests to the resolved URL with the key and headers", async () => {
  await using server = FakeLlm.start(() => ({ json: chatCompletion("hello") }));
  const { endpoint, env } = openRouterAt(server.url);
  const client = await createClient(endpoint, env);
  const reply = await client.chat.completions.create({
    model: "anthropic/claude",
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(reply.choices[0]?.message.content, "hello");
  const [request] = server.requests;
  assert.equal(request!.path, "/api/v1/chat/completions");
  assert.equal(
    request!.headers.authorization,
    `Bearer ${OPENROUTER_TEST_KEY}`,
  );
  assert.equal(request!.headers["x-title"], "jpt-test");
  assert.equal(request!.body!.model, "anthropic/claude");
});

Deno.test("createClient() reaches an openai_compat endpoint without a key", async () => {
  await using server = FakeLlm.start();
  const config = {
    providers: {
      llm: { openai_compat: { base_url: `${server.url}/custom/v1` } },
    },
  };
  const client = await createClient(
    resolveEndpoint(
      { provider: "openai_compat", name: "local" },
      config,
      () => undefined,
    ),
    () => undefined,
  );
  await client.chat.completions.create({
    model: "local",
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(server.requests[0]!.path, "/custom/v1/chat/completions");
});

Deno.test("createClient() names the missing key variable", async () => {
  const endpoint = resolveEndpoint(
    { provider: "anthropic", name: "claude" },
    {},
    () => undefined,
  );
  await assert.rejects(
    () => createClient(endpoint, () => undefined),
    (error) =>
      error instanceof MissingApiKeyError &&
      error.variable === "ANTHROPIC_API_KEY" &&
      error.message ===
        "No API key for anthropic: set the environment variable ANTHROPIC_API_KEY",
  );
});
