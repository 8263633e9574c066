/**
 * Nothing from a file or a model reaches the terminal as a control sequence,
 * and no key or URL password is ever printed.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runJpt } from "../support/cli.ts";
import { chatCompletion, FakeLlm } from "../support/fake_llm.ts";
import { tempWorkspace, writeConversation } from "../support/workspace.ts";

const OSC52 = "\u001b]52;c;ZWNobyBwd25lZA==\u0007";
const C1_CSI = "\u009b31m";
const BIDI = "\u202e";
// deno-lint-ignore no-control-regex -- looking for control characters is the point
const RAW_CONTROL = new RegExp(
  "[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]",
);

function events(lastTimestamp: string): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify(
      [
        { timestamp: "2026-01-01 00:00:00.0", type: "turn_start" },
        {
          timestamp: "2026-01-01 00:00:00.1",
          type: "chat_request",
          content: `hi ${C1_CSI}${BIDI}`,
        },
        { timestamp: lastTimestamp, type: "chat_response", message: "ok" },
      ],
      null,
      2,
    ) + "\n",
  );
}

Deno.test("conversation ls and --json never print a raw escape, C1 control or bidi override", async () => {
  await using ws = await tempWorkspace();
  await writeConversation(
    ws.conversations,
    "17800000000",
    events(`2026-01-01 00:00:01.0${OSC52}`),
    JSON.stringify({
      title: `Title ${C1_CSI}${BIDI}\u2066x`,
      last_activated_at: "2026-01-01 00:00:00.0",
    }) + "\n",
  );
  for (
    const args of [["conversation", "ls"], ["conversation", "ls", "--json"], [
      "turns",
      "--json",
    ], ["turns"]]
  ) {
    const result = await runJpt(args, { cwd: ws.root, env: ws.env });
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stdout, RAW_CONTROL, args.join(" "));
    assert.doesNotMatch(result.stderr, RAW_CONTROL, args.join(" "));
  }
  const json = await runJpt(["conversation", "ls", "--json"], {
    cwd: ws.root,
    env: ws.env,
  });
  const [row] = JSON.parse(json.stdout);
  assert.equal(
    row.title,
    `Title ${C1_CSI}${BIDI}\u2066x`,
    "the JSON value is unchanged",
  );
  assert.match(json.stdout, /\\u009b31m\\u202e\\u2066x/);
});

Deno.test("a chat reply's carriage returns and escapes never reach the terminal", async () => {
  await using server = FakeLlm.start((request) =>
    request.body?.stream
      ? { stream: { pieces: ["safe\r", "\u001b[2Kfake prompt$ ", "\rdone"] } }
      : { json: chatCompletion("{}") }
  );
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n`,
  );
  const result = await runJpt(["query", "--new", "--no-title", "hi"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "safefake prompt$ done\n");
});

Deno.test("keys echoed by a server and URL passwords are redacted everywhere", async () => {
  const key = "sk-proj-abcdefghijklmnop1234";
  await using server = FakeLlm.start((request) => ({
    status: 401,
    json: {
      error: {
        message: `Incorrect API key provided: ${request.headers.authorization}`,
        type: "invalid_request_error",
        code: "invalid_api_key",
      },
    },
  }));
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "openai/gpt-test"\n`,
  );
  await writeConversation(
    ws.conversations,
    "17800000000",
    events("2026-01-01 00:00:01.0"),
  );
  const url = server.url.replace("http://", "http://me:s3cretpass@");
  const env = { ...ws.env, OPENAI_API_KEY: key, OPENAI_BASE_URL: url };
  for (
    const args of [
      ["-v", "query", "--no-title", "hello"],
      ["-v", "summarize", "--all"],
      ["summarize", "--all", "--json"],
      ["models"],
      ["models", "--json"],
    ]
  ) {
    const result = await runJpt(args, { cwd: ws.root, env });
    const output = result.stdout + result.stderr;
    assert.ok(!output.includes(key), `${args.join(" ")}: ${output}`);
    assert.ok(!output.includes("s3cretpass"), `${args.join(" ")}: ${output}`);
  }
  const models = await runJpt(["models"], { cwd: ws.root, env });
  assert.match(models.stdout, /http:\/\/me:\*\*\*@127\.0\.0\.1/);
  assert.ok(
    server.requests.length > 0,
    "the server was asked, and echoed the key",
  );
});
