import assert from "node:assert/strict";
import { resolveRoleModel } from "../../src/config/role_models.ts";
import { createChatClient } from "../../src/llm/chat_client.ts";
import { resolveEndpoint } from "../../src/llm/endpoint.ts";
import type { PreparedTurn } from "../../src/summary/prepared_turn.ts";
import { OpenAiSummarizer } from "../../src/summary/openai_summarizer.ts";
import { outputLadder } from "../../src/llm/structured_completion.ts";
import {
  PROMPT_VERSION,
  SUMMARY_INSTRUCTIONS,
} from "../../src/summary/prompt.ts";
import {
  chatCompletion,
  FakeLlm,
  summaryResponder,
} from "../support/fake_llm.ts";

const batch: PreparedTurn[] = [
  {
    id: "b2",
    eventId: "b2",
    contentKey: "k2",
    index: 2,
    transcript: '<turn id="b2">\n<request>two</request>\n</turn>',
    fingerprint: "f2",
    tokens: 10,
  },
  {
    id: "a1",
    eventId: "a1",
    contentKey: "k1",
    index: 1,
    transcript: '<turn id="a1">\n<request>one</request>\n</turn>',
    fingerprint: "f1",
    tokens: 10,
  },
];

async function summarizerFor(
  server: FakeLlm,
  provider: string,
  extra: Record<string, unknown> = {},
) {
  const config = {
    assistant: { model: { id: `${provider}/tiny` } },
    providers: { llm: { [provider]: { base_url: server.url, ...extra } } },
  };
  const model = resolveRoleModel(config, "turn_summary");
  const env = (name: string) => name.endsWith("_API_KEY") ? "key" : undefined;
  const endpoint = resolveEndpoint(model.id, config, env);
  return new OpenAiSummarizer(
    model,
    endpoint,
    await createChatClient(endpoint, env),
  );
}

Deno.test("OpenAiSummarizer sends the prompt, the transcripts and a strict schema of the packed ids", async () => {
  await using server = FakeLlm.start(summaryResponder());
  const result = await (await summarizerFor(server, "openai")).summarize(
    batch,
    new AbortController().signal,
  );
  assert.deepEqual(Object.fromEntries(result), {
    b2: "Summarize turn b2",
    a1: "Summarize turn a1",
  });
  const body = server.chatRequests[0]!.body!;
  assert.equal(body.model, "tiny");
  assert.equal(PROMPT_VERSION, 1);
  assert.deepEqual(body.messages, [
    { role: "system", content: SUMMARY_INSTRUCTIONS },
    {
      role: "user",
      content: `${batch[0]!.transcript}\n\n${batch[1]!.transcript}`,
    },
  ]);
  const format = body.response_format as {
    type: string;
    json_schema: {
      strict: boolean;
      schema: { properties: { summaries: { properties: object } } };
    };
  };
  assert.equal(format.type, "json_schema");
  assert.equal(format.json_schema.strict, true);
  assert.deepEqual(
    Object.keys(format.json_schema.schema.properties.summaries.properties),
    ["b2", "a1"],
  );
  assert.ok(
    SUMMARY_INSTRUCTIONS.includes("at most 60 characters") &&
      SUMMARY_INSTRUCTIONS.includes('{"summaries"'),
  );
});

Deno.test("OpenAiSummarizer steps down the ladder when a server rejects the format", async () => {
  await using server = FakeLlm.start((request) => {
    const format =
      (request.body!.response_format as { type?: string } | undefined)?.type;
    if (format !== undefined) {
      return {
        status: 400,
        json: { error: { message: `response_format ${format} unsupported` } },
      };
    }
    return {
      json: chatCompletion('Sure: {"summaries": {"a1": "Plain text rung"}}'),
    };
  });
  const result = await (await summarizerFor(server, "openai")).summarize(
    batch,
    new AbortController().signal,
  );
  assert.equal(result.get("a1"), "Plain text rung");
  assert.deepEqual(
    server.chatRequests.map((r) =>
      (r.body!.response_format as { type?: string } | undefined)?.type ?? "none"
    ),
    ["json_schema", "json_object", "none"],
  );
  assert.deepEqual(outputLadder("json_object"), ["json_object", "none"]);
  assert.deepEqual(outputLadder("none"), ["none"]);
});

Deno.test("OpenAiSummarizer uses each provider's capability", async () => {
  await using server = FakeLlm.start(summaryResponder());
  await (await summarizerFor(server, "deepseek")).summarize(
    batch,
    new AbortController().signal,
  );
  await (await summarizerFor(server, "anthropic")).summarize(
    batch,
    new AbortController().signal,
  );
  await (await summarizerFor(server, "ollama")).summarize(
    batch,
    new AbortController().signal,
  );
  const formats = server.chatRequests.map((r) =>
    r.body!.response_format as {
      type?: string;
      json_schema?: { strict: boolean };
    } | undefined
  );
  assert.equal(formats[0]?.type, "json_object");
  assert.equal(formats[1], undefined);
  assert.equal(formats[2]?.type, "json_schema");
  assert.equal(formats[2]?.json_schema?.strict, false);
});

Deno.test("OpenAiSummarizer passes the abort to the HTTP request", async () => {
  await using server = FakeLlm.start(() => ({ hang: true }));
  const controller = new AbortController();
  const pending = (await summarizerFor(server, "ollama")).summarize(
    batch,
    controller.signal,
  );
  while (server.requests.length === 0) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  controller.abort();
  await assert.rejects(pending);
  while (server.requests[0]!.abortedAt === undefined) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.ok(
    server.requests[0]!.abortedAt! >= server.requests[0]!.receivedAt,
    "the server saw the disconnect",
  );
});
