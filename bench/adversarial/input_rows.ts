/**
 * Rows of hostile input: corrupt files under read-only commands, concurrent
 * new conversations, hostile models (escape sequences, garbage, errors,
 * stalls, a 200 that is no event stream), secret probes and a config nested
 * deeper than any reader should recurse.
 *
 * @module
 */

import { join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import {
  chatCompletion,
  FakeLlm,
  type FakeResponse,
} from "../../tests/support/fake_llm.ts";
import {
  judge,
  random,
  removeTrial,
  runJpt,
  same,
  sampleWorkspace,
  seedEvents,
  snapshot,
  type Study,
} from "./harness.ts";

const MUTATIONS: Array<(text: string, next: () => number) => string> = [
  (t, r) => t.slice(0, Math.floor(r() * t.length)), // truncated
  (t, r) => { // one byte replaced
    const i = Math.floor(r() * t.length);
    const chars = [
      '"',
      "{",
      "}",
      "[",
      "]",
      ",",
      ":",
      "\\",
      "\t",
      "\u0000",
      "x",
    ];
    return t.slice(0, i) + chars[Math.floor(r() * chars.length)] +
      t.slice(i + 1);
  },
  (t) => t.replace('"turn_start"', '"x/../../../victim"'),
  (t) => t.replace('"content": "', '"content": 7, "x": "'),
  (t) => t.replace('"message": "', '"message": "\\ud800'),
  (t) =>
    t.replace(
      '"type": "chat_request"',
      '"type": "tool_call_response", "is_error": "true"',
    ),
  (t) => t.replace('"timestamp": "', '"timestamp": "\\u001b]52;c;eA==\\u0007'),
  (t) => t.replace('"event_id": "', '"event_id": 5, "old": "'),
  () => `${"[".repeat(5000)}${"]".repeat(5000)}`,
  (t) => t.replace(/"event_id": "[a-z0-9]+"/g, '"event_id": "same"'),
];

/** Corrupt files under read-only commands: nothing changes, every error is clear. */
export async function corruptInput(study: Study, count: number): Promise<void> {
  const next = random(126);
  const original = await seedEvents();
  // Seven commands against ten mutations: by the 70th trial every pair is
  // tried.
  const commands = [
    ["turns"],
    ["check"],
    ["conversation", "ls"],
    ["summarize", "--dry-run"],
    ["turns", "--json"],
    ["find", "retry"],
    ["find", "--json", "retry"],
  ];
  for (let i = 0; i < count; i++) {
    const { root, dir } = await sampleWorkspace();
    const mutate = MUTATIONS[i % MUTATIONS.length]!;
    const file = [
      "events.json",
      "metadata.json",
      "base_config.json",
    ][i % 7 === 6 ? 1 : i % 11 === 10 ? 2 : 0]!;
    const text = file === "events.json"
      ? original
      : await Deno.readTextFile(join(dir, file));
    await Deno.writeTextFile(join(dir, file), mutate(text, next));
    const before = await snapshot(dir);
    const args = commands[i % commands.length]!;
    const run = await runJpt(study, args, root);
    const after = await snapshot(dir);
    const outside = [...Deno.readDirSync(root)].map((e) => e.name).filter((n) =>
      n !== ".jp"
    );
    const outcome = !same(before, after) || outside.length > 0
      ? "lost"
      : judge(run);
    study.tallies.record(
      "corrupt input (read-only commands)",
      outcome,
      `${args.join(" ")} on mutation ${i % MUTATIONS.length}: ${
        run.stderr.slice(0, 120)
      }`,
    );
    await removeTrial(root);
  }
}

/** Three `query --new` at once: three new conversations, none lost. */
export async function concurrency(study: Study, count: number): Promise<void> {
  await using server = FakeLlm.start((request) =>
    request.body?.stream
      ? { stream: { pieces: ["ok"] } }
      : { json: chatCompletion("{}") }
  );
  for (let i = 0; i < count; i++) {
    const { root } = await sampleWorkspace();
    await Deno.writeTextFile(
      join(root, ".jp", "config.toml"),
      `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n[conversation.title.generate]\nauto = false\n`,
    );
    const runs = await Promise.all(
      [0, 1, 2].map((k) =>
        runJpt(study, ["query", "--new", `parallel ${i}.${k}`], root)
      ),
    );
    const conversations =
      [...Deno.readDirSync(join(root, ".jp", "conversations"))].length;
    const lost = conversations !== 4 || runs.some((run) => run.code !== 0);
    study.tallies.record(
      "concurrent query --new",
      lost ? "lost" : "ok",
      `round ${i}: ${conversations - 1} new of 3; ${
        runs.map((r) => r.stderr.trim()).join(" | ")
      }`,
    );
    await removeTrial(root);
  }
}

const HOSTILE: Array<[string, FakeResponse]> = [
  ["escape sequences", {
    stream: { pieces: ["\u001b]52;c;eA==\u0007hi\r\u001b[2K"] },
  }],
  ["garbage body", { status: 200, text: "not json at all" }],
  ["HTTP 500", { status: 500, json: { error: { message: "boom" } } }],
  ["HTTP 429", { status: 429, json: { error: { message: "slow down" } } }],
  ["huge reply", { stream: { pieces: ["x".repeat(2_000_000)] } }],
  ["stall", { stream: { pieces: ["half"], stallAfterMs: 60_000 } }],
  ["empty stream", { stream: { pieces: [] } }],
];

/** Hostile model answers: nothing reaches the terminal raw, the file stays valid. */
export async function hostileModel(
  study: Study,
  rounds: number,
): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    for (const [name, answer] of HOSTILE) {
      await using server = FakeLlm.start(() => answer);
      const { root, dir } = await sampleWorkspace();
      const env = { JPT_IDLE_TIMEOUT_SECS: "2" };
      const base = ["--cfg", `providers.llm.ollama.base_url=${server.url}`];
      for (
        const args of [
          [...base, "query", "--id", "17800000000", "hi"],
          [...base, "summarize", "--timeout", "5"],
        ]
      ) {
        const run = await runJpt(study, args, root, env);
        // deno-lint-ignore no-control-regex -- looking for control characters
        const leaked = /[\u001b\u0007\u009b]|\r(?!\n)/.test(
          run.stdout + run.stderr,
        );
        let valid = true;
        try {
          ConversationStream.parse(
            await Deno.readFile(join(dir, "events.json")),
          );
        } catch {
          valid = false;
        }
        study.tallies.record(
          "hostile model",
          leaked || !valid ? "lost" : judge(run),
          `${name} / ${args.at(-2)}: ${run.stderr.slice(0, 120)}`,
        );
      }
      await removeTrial(root);
    }
  }
}

/** Secret probes: no key printed, written or sent where config planted it. */
export async function secrets(study: Study, rounds: number): Promise<void> {
  const key = "sk-adversarial-0123456789abcdef";
  const token = "ghp_adversarial_token_98765";
  const probes: Array<[string, (auth: string) => FakeResponse]> = [
    [
      "401 echoing the header",
      (auth) => ({
        status: 401,
        json: { error: { message: `bad key ${auth}` } },
      }),
    ],
    ["500 echoing the header", (auth) => ({ status: 500, text: auth })],
    [
      "reply quoting the header",
      (auth) => ({ stream: { pieces: [`you sent ${auth}`] } }),
    ],
    [
      "summary quoting the header",
      (auth) => ({
        json: chatCompletion(JSON.stringify({ summaries: { x: auth } })),
      }),
    ],
  ];
  for (let round = 0; round < rounds; round++) {
    for (const [name, respond] of probes) {
      await using server = FakeLlm.start((request) =>
        respond(request.headers.authorization ?? "")
      );
      const { root, dir } = await sampleWorkspace();
      await Deno.writeTextFile(
        join(dir, "base_config.json"),
        JSON.stringify({
          assistant: { model: { id: { provider: "openai", name: "m" } } },
          providers: {
            llm: {
              openai: { api_key_env: "GITHUB_TOKEN", base_url: server.url },
            },
          },
        }),
      );
      const env = {
        OPENAI_API_KEY: key,
        GITHUB_TOKEN: token,
        OPENAI_BASE_URL: server.url.replace("http://", "http://u:pw12345678@"),
      };
      for (
        const args of [
          ["-v", "query", "hi"],
          ["summarize", "--json"],
          ["-v", "summarize"],
          ["models"],
          ["--model", "openai/m", "query", "--new", "hi"],
        ]
      ) {
        const run = await runJpt(study, args, root, env);
        const text = run.stdout + run.stderr;
        const printed = text.includes(key) || text.includes(token) ||
          text.includes("pw12345678");
        const sent = server.requests.some((request) =>
          JSON.stringify(request).includes(token)
        );
        const files = [...(await snapshot(dir)).values()].some((content) =>
          content.includes(key) || content.includes(token)
        );
        study.tallies.record(
          "secret probes",
          printed || sent || files ? "lost" : judge(run),
          `${name} / ${args.join(" ")}`,
        );
      }
      await removeTrial(root);
    }
  }
}

/**
 * A provider answering a streamed request with 200 and no event stream (a
 * proxy's page, JSON): a clear error, never a silent empty reply (exit 0
 * with nothing counts as lost).
 */
export async function notAStream(study: Study): Promise<void> {
  const answers: Array<[string, FakeResponse]> = [
    ["a JSON body", { json: chatCompletion("a whole reply") }],
    ["an HTML page", {
      text: "<html>sign in</html>",
      headers: { "content-type": "text/html" },
    }],
  ];
  for (const [name, answer] of answers) {
    await using server = FakeLlm.start(() => answer);
    const { root } = await sampleWorkspace();
    const run = await runJpt(study, [
      "--cfg",
      `providers.llm.ollama.base_url=${server.url}`,
      "query",
      "--id",
      "17800000000",
      "hi",
    ], root);
    study.tallies.record(
      "a streamed reply answered 200 without a stream",
      run.code === 0 ? "lost" : judge(run),
      `${name}: exit ${run.code}, ${run.stdout.length} bytes printed`,
    );
    await removeTrial(root);
  }
}

/** A `base_config.json` nested 200,000 deep: a clear error, never a stack overflow. */
export async function deepConfig(study: Study): Promise<void> {
  const depth = 200_000;
  for (const args of [["summarize"], ["turns"], ["check"]]) {
    const { root, dir } = await sampleWorkspace();
    await Deno.writeTextFile(
      join(dir, "base_config.json"),
      '{"a":'.repeat(depth) + "1" + "}".repeat(depth),
    );
    const run = await runJpt(study, args, root);
    study.tallies.record(
      "a config nested 200,000 deep",
      judge(run),
      `${args.join(" ")}: ${run.stderr.slice(0, 160)}`,
    );
    await removeTrial(root);
  }
}
