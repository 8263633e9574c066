/**
 * The first hour of use: `jpt init`, a query that cannot start writes
 * nothing, piped input joins the message, a failed request never makes two
 * user messages in a row, `jpt models` tells the truth, jp's flags.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runJpt } from "../support/cli.ts";
import { chatCompletion, FakeLlm } from "../support/fake_llm.ts";
import { tempWorkspace } from "../support/workspace.ts";

/** Every file under a directory with its bytes, for byte-identical checks. */
async function tree(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (path: string, name: string) => {
    for await (const item of Deno.readDir(path)) {
      const child = join(path, item.name);
      if (item.isDirectory) {
        files[`${name}${item.name}/`] = "";
        await walk(child, `${name}${item.name}/`);
      } else files[`${name}${item.name}`] = await Deno.readTextFile(child);
    }
  };
  await walk(dir, "");
  return files;
}

function chatServer(): FakeLlm {
  return FakeLlm.start((request) =>
    request.body?.stream
      ? { stream: { pieces: ["Answer."] } }
      : { json: chatCompletion(JSON.stringify({ titles: ["T"] })) }
  );
}

Deno.test("jpt init makes .jp/ in an empty directory, and jpt turns then works", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jpt-init-" });
  try {
    const init = await runJpt(["init"], { cwd: dir });
    assert.equal(init.code, 0, init.stderr);
    assert.deepEqual(
      [...Deno.readDirSync(join(dir, ".jp"))].map((e) => e.name).sort(),
      [".gitignore", ".id", "config.toml", "jpt.toml"],
    );
    assert.match(
      await Deno.readTextFile(join(dir, ".jp", ".id")),
      /\n[0-9a-z]{5}\n$/,
    );
    assert.doesNotMatch(
      await Deno.readTextFile(join(dir, ".jp", "config.toml")),
      /^\[conversation\.turn_summary/m,
      "jpt-only settings never go into jp's file",
    );
    const turns = await runJpt(["turns"], { cwd: dir });
    assert.equal(turns.code, 0, turns.stderr);
    const check = await runJpt(["check"], { cwd: dir });
    assert.equal(check.code, 0, check.stdout);
    const again = await runJpt(["init"], { cwd: dir });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already has a jp workspace/);
    const elsewhere = await runJpt(["turns"], {
      cwd: await Deno.makeTempDir(),
    });
    assert.match(elsewhere.stderr, /run jpt init, or pass --workspace/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("with OPENAI_API_KEY unset, query --new exits 1 naming it and leaves .jp/ byte-identical", async () => {
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    '[assistant.model]\nid = "openai/gpt-5-mini"\n',
  );
  const before = await tree(join(ws.root, ".jp"));
  const result = await runJpt(["query", "--new", "hello"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /OPENAI_API_KEY/);
  assert.deepEqual(await tree(join(ws.root, ".jp")), before);
});

Deno.test("piped input is sent with the message, after it, as jp does", async () => {
  await using server = chatServer();
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/x"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n`,
  );
  const result = await runJpt(
    ["query", "--new", "--no-title", "Explain this"],
    {
      cwd: ws.root,
      env: ws.env,
      stdin: "X\n",
    },
  );
  assert.equal(result.code, 0, result.stderr);
  const chat = server.chatRequests.find((r) => r.body?.stream)!;
  assert.deepEqual(chat.body!.messages, [
    { role: "user", content: "Explain this\n\nX\n" },
  ]);
});

Deno.test("after a request that could not reach the server, the next request has no two user messages in a row", async () => {
  await using server = chatServer();
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/x"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n`,
  );
  const unreachable = await runJpt([
    "--cfg",
    "providers.llm.ollama.base_url=http://127.0.0.1:8",
    "query",
    "--new",
    "--no-title",
    "first try",
  ], { cwd: ws.root, env: ws.env });
  assert.equal(unreachable.code, 1);
  // The conversation stored the unreachable URL with its config; --cfg wins.
  const next = await runJpt([
    "--cfg",
    `providers.llm.ollama.base_url=${server.url}`,
    "query",
    "second try",
  ], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(next.code, 0, next.stderr);
  const messages = server.chatRequests.find((r) => r.body?.stream)!.body!
    .messages as Array<{ role: string; content: string }>;
  for (let i = 1; i < messages.length; i++) {
    assert.ok(
      !(messages[i]!.role === "user" && messages[i - 1]!.role === "user"),
      JSON.stringify(messages),
    );
  }
  assert.deepEqual(messages, [
    { role: "user", content: "first try\n\nsecond try" },
  ]);
});

Deno.test("jpt models reports the models of the conversation jpt query would continue", async () => {
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    '[assistant.model]\nid = "ollama/x"\n',
  );
  const dir = join(ws.conversations, "17800000000");
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    join(dir, "metadata.json"),
    '{\n  "last_activated_at": "2026-01-01 00:00:00.0"\n}\n',
  );
  await Deno.writeTextFile(
    join(dir, "base_config.json"),
    JSON.stringify({
      assistant: {
        model: { id: { provider: "anthropic", name: "claude-haiku-4-5" } },
      },
    }) + "\n",
  );
  await Deno.writeTextFile(join(dir, "events.json"), "[]\n");
  const result = await runJpt(["models", "--json"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(
    JSON.parse(result.stdout).assistant.id,
    "anthropic/claude-haiku-4-5",
  );
  const fresh = await runJpt(["models", "--json", "--new"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(JSON.parse(fresh.stdout).assistant.id, "ollama/x");
});

Deno.test("-c is --cfg as in jp; an old -c <conversation> fails and names --id; --id takes jp's keywords", async () => {
  await using server = chatServer();
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/x"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n`,
  );
  const cfg = await runJpt(
    [
      "-c",
      "conversation.title.from_heading=false",
      "config",
      "show",
      "conversation.title.from_heading",
    ],
    { cwd: ws.root, env: ws.env },
  );
  assert.equal(cfg.stdout, "conversation.title.from_heading = false\n");
  const old = await runJpt(["query", "-c", "jp-c17800000000", "hi"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(old.code, 2);
  assert.match(old.stderr, /-c is --cfg \(as in jp\).*--id jp-c17800000000/);
  for (
    const words of [["-n", "--no-title", "one"], ["--id", "last", "two"], [
      "--id",
      "last-created",
      "three",
    ], ["-m", "ollama/y", "--id", "last-activated", "four"]]
  ) {
    const result = await runJpt(["q", ...words], { cwd: ws.root, env: ws.env });
    assert.equal(result.code, 0, result.stderr);
  }
  assert.equal([...Deno.readDirSync(ws.conversations)].length, 1);
  assert.equal(
    server.chatRequests.filter((r) => r.body?.stream).at(-1)!.body!.model,
    "y",
  );
});
