import assert from "node:assert/strict";
import type OpenAI from "openai";
import { createChatClient } from "../../src/llm/chat_client.ts";
import { MissingApiKeyError } from "../../src/llm/client.ts";
import { resolveEndpoint } from "../../src/llm/endpoint.ts";
import { loadOpenAi } from "../../src/llm/openai_sdk.ts";
import { chatCompletion, FakeLlm } from "../support/fake_llm.ts";
import { OPENROUTER_TEST_KEY, openRouterAt } from "../support/endpoints.ts";

const noRetry = { retry: { maxRetries: 0, maxWaitMs: 0 } };
const hi = { model: "m", messages: [{ role: "user" as const, content: "hi" }] };

function compatEndpoint(baseUrl: string) {
  return resolveEndpoint(
    { provider: "openai_compat", name: "m" },
    { providers: { llm: { openai_compat: { base_url: baseUrl } } } },
    () => undefined,
  );
}

Deno.test("createChatClient() sends requests to the resolved URL with the key and headers", async () => {
  await using server = FakeLlm.start(() => ({ json: chatCompletion("hello") }));
  const { endpoint, env } = openRouterAt(server.url);
  const client = await createChatClient(endpoint, env);
  const reply = await client.complete(
    { ...hi, model: "anthropic/claude" },
    new AbortController().signal,
  ) as OpenAI.ChatCompletion;
  assert.equal(reply.choices[0]?.message.content, "hello");
  const [request] = server.requests;
  assert.equal(request!.method, "POST");
  assert.equal(request!.path, "/api/v1/chat/completions");
  assert.equal(
    request!.headers.authorization,
    `Bearer ${OPENROUTER_TEST_KEY}`,
  );
  assert.equal(request!.headers["x-title"], "jpt-test");
  assert.equal(request!.headers["content-type"], "application/json");
  assert.match(request!.headers["user-agent"]!, /^OpenAI\/JS \d+\.\d+/);
  assert.equal(request!.body!.model, "anthropic/claude");
  assert.equal(request!.body!.stream, false);
});

Deno.test("createChatClient() joins the path under a base URL with or without its slash, and sends no key where none is needed", async () => {
  await using server = FakeLlm.start();
  for (const base of [`${server.url}/custom/v1`, `${server.url}/custom/v1/`]) {
    const client = await createChatClient(
      compatEndpoint(base),
      () => undefined,
    );
    await client.complete(hi, new AbortController().signal);
  }
  assert.deepEqual(server.requests.map((request) => request.path), [
    "/custom/v1/chat/completions",
    "/custom/v1/chat/completions",
  ]);
  assert.equal(server.requests[0]!.headers.authorization, undefined);
});

Deno.test("createChatClient() names the missing key variable", async () => {
  const endpoint = resolveEndpoint(
    { provider: "anthropic", name: "claude" },
    {},
    () => undefined,
  );
  await assert.rejects(
    () => createChatClient(endpoint, () => undefined),
    (error) =>
      error instanceof MissingApiKeyError &&
      error.variable === "ANTHROPIC_API_KEY",
  );
});

Deno.test("stream() hands over the chunks of a streamed reply as they arrive", async () => {
  await using server = FakeLlm.start(() => ({
    stream: { pieces: ["Hel", "lo", "!"] },
  }));
  const client = await createChatClient(
    compatEndpoint(`${server.url}/v1`),
    () => undefined,
  );
  const stream = await client.stream(hi, new AbortController().signal);
  let text = "";
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? "";
  }
  assert.equal(text, "Hello!");
  assert.equal(server.chatRequests[0]!.body!.stream, true);
});

Deno.test("an HTTP error becomes the SDK's own error class, with the server's message", async () => {
  const sdk = await loadOpenAi();
  // deno-lint-ignore no-explicit-any
  const cases: Array<[number, new (...args: any[]) => Error]> = [
    [400, sdk.BadRequestError],
    [401, sdk.AuthenticationError],
    [404, sdk.NotFoundError],
    [429, sdk.RateLimitError],
    [503, sdk.InternalServerError],
  ];
  for (const [status, errorClass] of cases) {
    await using server = FakeLlm.start(() => ({
      status,
      json: { error: { message: `status ${status} here` } },
    }));
    const client = await createChatClient(
      compatEndpoint(`${server.url}/v1`),
      () => undefined,
      noRetry,
    );
    for (const call of [client.complete, client.stream]) {
      await assert.rejects(
        () => call.call(client, hi, new AbortController().signal),
        (error) =>
          error instanceof errorClass && error instanceof sdk.APIError &&
          error.status === status &&
          (error.error as { message?: string }).message ===
            `status ${status} here`,
      );
    }
  }
});

Deno.test("an error answer that is not JSON keeps its text as the message", async () => {
  const sdk = await loadOpenAi();
  await using server = FakeLlm.start(() => ({ status: 502, text: "bad gate" }));
  const client = await createChatClient(
    compatEndpoint(`${server.url}/v1`),
    () => undefined,
    noRetry,
  );
  await assert.rejects(
    () => client.complete(hi, new AbortController().signal),
    (error) =>
      error instanceof sdk.InternalServerError &&
      error.message.includes("bad gate"),
  );
});

Deno.test("an answer that is not JSON comes back as its text", async () => {
  await using server = FakeLlm.start(() => ({ text: "<html>hello</html>" }));
  const client = await createChatClient(
    compatEndpoint(`${server.url}/v1`),
    () => undefined,
  );
  assert.equal(
    await client.complete(hi, new AbortController().signal),
    "<html>hello</html>",
  );
});

Deno.test("nothing listening is a connection error, an answer slower than the timeout a timeout, a stop an abort", async () => {
  const sdk = await loadOpenAi();
  const closed = FakeLlm.start();
  const closedUrl = closed.url;
  await closed.close();
  const refused = await createChatClient(
    compatEndpoint(`${closedUrl}/v1`),
    () => undefined,
    noRetry,
  );
  await assert.rejects(
    () => refused.complete(hi, new AbortController().signal),
    (error) =>
      error instanceof sdk.APIConnectionError &&
      !(error instanceof sdk.APIConnectionTimeoutError),
  );

  await using server = FakeLlm.start(() => ({ hang: true }));
  const slow = await createChatClient(
    compatEndpoint(`${server.url}/v1`),
    () => undefined,
    { ...noRetry, timeoutMs: 50 },
  );
  await assert.rejects(
    () => slow.complete(hi, new AbortController().signal),
    (error) => error instanceof sdk.APIConnectionTimeoutError,
  );

  const patient = await createChatClient(
    compatEndpoint(`${server.url}/v1`),
    () => undefined,
    noRetry,
  );
  const stop = new AbortController();
  const call = patient.complete(hi, stop.signal);
  while (server.requests.length < 2) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  stop.abort();
  await assert.rejects(
    () => call,
    (error) => error instanceof sdk.APIUserAbortError,
  );
});
