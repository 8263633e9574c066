import assert from "node:assert/strict";
import type OpenAI from "openai";
import { createChatClient } from "../../src/llm/chat_client.ts";
import { resolveEndpoint } from "../../src/llm/endpoint.ts";
import {
  retryDelayMs,
  retryingFetch,
  retryPolicyFromEnv,
} from "../../src/llm/retrying_fetch.ts";
import { chatCompletion, FakeLlm } from "../support/fake_llm.ts";

/** A transport answering from a list, and the waits the policy asked for. */
function scripted(answers: Array<() => Response>) {
  const waits: number[] = [];
  let calls = 0;
  const inner = () => Promise.resolve(answers[calls++]!());
  const policy = (maxRetries: number, maxWaitMs = 60_000) => ({
    maxRetries,
    maxWaitMs,
    sleep: (ms: number) => {
      waits.push(ms);
      return Promise.resolve();
    },
  });
  return { inner, policy, waits, calls: () => calls };
}

const status = (code: number, headers: Record<string, string> = {}) => () =>
  new Response("{}", { status: code, headers });

Deno.test("a 429 is retried after the Retry-After the server asked for", async () => {
  const t = scripted([status(429, { "retry-after": "2" }), status(200)]);
  const response = await retryingFetch(t.inner, t.policy(5))("http://x/");
  assert.equal(response.status, 200);
  assert.deepEqual(t.waits, [2000]);
  assert.equal(t.calls(), 2);
});

Deno.test("Retry-After as an HTTP date and retry-after-ms are honoured", () => {
  const soon = new Date(Date.now() + 30_000).toUTCString();
  const byDate = retryDelayMs(new Headers({ "retry-after": soon }), 1);
  assert.ok(byDate > 25_000 && byDate <= 30_000, String(byDate));
  assert.equal(
    retryDelayMs(
      new Headers({ "retry-after-ms": "250", "retry-after": "9" }),
      1,
    ),
    250,
  );
});

Deno.test("without Retry-After, 5xx answers back off exponentially with jitter", async () => {
  const t = scripted([
    status(500),
    status(502),
    status(503),
    status(504),
    status(200),
  ]);
  const response = await retryingFetch(t.inner, t.policy(5))("http://x/");
  assert.equal(response.status, 200);
  assert.equal(t.waits.length, 4);
  [500, 1000, 2000, 4000].forEach((base, i) => {
    assert.ok(t.waits[i]! <= base && t.waits[i]! >= base * 0.75, `${t.waits}`);
  });
});

Deno.test("retries are bounded in count and in total waiting", async () => {
  const byCount = scripted(Array(10).fill(status(503)));
  const last = await retryingFetch(byCount.inner, byCount.policy(2))(
    "http://x/",
  );
  assert.equal(last.status, 503);
  assert.equal(byCount.calls(), 3);

  const byTime = scripted([
    status(429, { "retry-after": "5" }),
    status(429, { "retry-after": "5" }),
    status(200),
  ]);
  const refused = await retryingFetch(byTime.inner, byTime.policy(5, 8_000))(
    "http://x/",
  );
  assert.equal(refused.status, 429, "a wait past the bound is not taken");
  assert.deepEqual(byTime.waits, [5000]);
});

Deno.test("client errors and streamed bodies are not retried", async () => {
  const t = scripted([status(400), status(200)]);
  assert.equal(
    (await retryingFetch(t.inner, t.policy(5))("http://x/")).status,
    400,
  );
  const s = scripted([status(503), status(200)]);
  const body = new ReadableStream({ start: (c) => c.close() });
  const once = await retryingFetch(s.inner, s.policy(5))("http://x/", {
    method: "POST",
    body,
  });
  assert.equal(once.status, 503);
  assert.equal(s.calls(), 1);
});

Deno.test("an abort during the wait ends the request", async () => {
  const controller = new AbortController();
  let calls = 0;
  const inner = () => {
    calls++;
    queueMicrotask(() => controller.abort(new Error("stop")));
    return Promise.resolve(
      new Response("", { status: 429, headers: { "retry-after": "30" } }),
    );
  };
  await assert.rejects(
    retryingFetch(inner, { maxRetries: 5, maxWaitMs: 60_000 })("http://x/", {
      signal: controller.signal,
    }),
    /stop/,
  );
  assert.equal(calls, 1);
});

Deno.test("JPT_MODEL_RETRIES sets the count; other values are ignored", () => {
  assert.equal(retryPolicyFromEnv(() => "0").maxRetries, 0);
  assert.equal(retryPolicyFromEnv(() => "7").maxRetries, 7);
  assert.equal(retryPolicyFromEnv(() => "many").maxRetries, 5);
  assert.equal(retryPolicyFromEnv(() => undefined).maxRetries, 5);
});

Deno.test("model calls through the chat client retry a rate limit and get the answer", async () => {
  let calls = 0;
  await using server = FakeLlm.start(() =>
    ++calls < 3
      ? {
        status: 429,
        headers: { "retry-after-ms": "20" },
        json: { error: { message: "slow down" } },
      }
      : { json: chatCompletion("ok") }
  );
  const endpoint = resolveEndpoint(
    { provider: "openai_compat", name: "m" },
    { providers: { llm: { openai_compat: { base_url: `${server.url}/v1` } } } },
    () => undefined,
  );
  const client = await createChatClient(endpoint, () => undefined);
  const reply = await client.complete({
    model: "m",
    messages: [{ role: "user", content: "hi" }],
  }, new AbortController().signal) as OpenAI.ChatCompletion;
  assert.equal(reply.choices[0]?.message.content, "ok");
  assert.equal(server.chatRequests.length, 3);
});
