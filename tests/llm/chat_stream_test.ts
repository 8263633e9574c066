import assert from "node:assert/strict";
import { createChatClient } from "../../src/llm/chat_client.ts";
import { streamChat } from "../../src/llm/chat_stream.ts";
import { resolveEndpoint } from "../../src/llm/endpoint.ts";
import { FakeLlm } from "../support/fake_llm.ts";

async function clientFor(server: FakeLlm) {
  return await createChatClient(
    resolveEndpoint(
      { provider: "openai_compat", name: "m" },
      {
        providers: { llm: { openai_compat: { base_url: `${server.url}/v1` } } },
      },
      () => undefined,
    ),
    () => undefined,
    { retry: { maxRetries: 0, maxWaitMs: 0 } },
  );
}

Deno.test("streamChat() says when the answer starts, before its first piece, and not for a refused request", async () => {
  await using server = FakeLlm.start(() => ({
    stream: { pieces: ["one", " two"], reasoning: ["hm"] },
  }));
  const events: string[] = [];
  const reply = await streamChat(await clientFor(server), {
    model: "m",
    messages: [{ role: "user", content: "hi" }],
    params: { temperature: 0 },
  }, {
    signal: new AbortController().signal,
    idleTimeoutMs: 5_000,
    onAnswer: () => events.push("answer"),
    onText: (piece) => events.push(`text:${piece}`),
    onReasoning: (piece) => events.push(`reasoning:${piece}`),
  });
  assert.equal(reply.text, "one two");
  assert.equal(reply.reasoning, "hm");
  assert.equal(reply.interrupted, false);
  assert.equal(events[0], "answer");
  assert.equal(events.filter((event) => event === "answer").length, 1);
  assert.deepEqual(server.chatRequests[0]!.body, {
    model: "m",
    messages: [{ role: "user", content: "hi" }],
    temperature: 0,
    stream: true,
  });

  server.respond(() => ({ status: 400, json: { error: { message: "no" } } }));
  let answered = false;
  const client = await clientFor(server);
  await assert.rejects(() =>
    streamChat(client, {
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      params: {},
    }, {
      signal: new AbortController().signal,
      idleTimeoutMs: 5_000,
      onAnswer: () => answered = true,
      onText: () => {},
      onReasoning: () => {},
    })
  );
  assert.equal(answered, false);
});

Deno.test("streamChat() stopped by its signal before the answer keeps an empty, interrupted reply", async () => {
  let release = () => {};
  const released = new Promise<void>((resolve) => release = resolve);
  await using server = FakeLlm.start(async () => {
    // No headers until the test is done with the request.
    await released;
    return { stream: { pieces: ["late"] } };
  });
  const stop = new AbortController();
  const pending = streamChat(await clientFor(server), {
    model: "m",
    messages: [{ role: "user", content: "hi" }],
    params: {},
  }, {
    signal: stop.signal,
    idleTimeoutMs: 60_000,
    onText: () => {},
    onReasoning: () => {},
  });
  while (server.requests.length === 0) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  stop.abort();
  assert.deepEqual(await pending, {
    text: "",
    reasoning: "",
    interrupted: true,
  });
  release();
});
