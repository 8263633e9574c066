/**
 * Bad input gets a clear error naming the file and position, and loses
 * nothing: nothing is written before the problem is found.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runJpt } from "../support/cli.ts";
import { FakeLlm, summaryResponder } from "../support/fake_llm.ts";
import { tempWorkspace, writeConversation } from "../support/workspace.ts";

const NO_SERVER = [
  "--model",
  "ollama/x",
  "--cfg",
  "providers.llm.ollama.base_url=http://127.0.0.1:8",
];

function turns(ids: string[]): Record<string, unknown>[] {
  return ids.flatMap((id, i) => [
    { event_id: id, timestamp: `2026-01-01 00:00:0${i}.0`, type: "turn_start" },
    {
      timestamp: `2026-01-01 00:00:0${i}.1`,
      type: "chat_request",
      content: `ask ${i}`,
    },
    {
      timestamp: `2026-01-01 00:00:0${i}.2`,
      type: "chat_response",
      message: `answer ${i}`,
    },
  ]);
}

async function conversation(text: string) {
  const ws = await tempWorkspace();
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    new TextEncoder().encode(text),
  );
  await Deno.writeTextFile(join(dir, "base_config.json"), "{}\n");
  const events = join(dir, "events.json");
  return { ws, events };
}

Deno.test("a raw TAB or NUL in a string is an error naming the file and byte, and nothing is written", async () => {
  for (const raw of ["\t", "\u0000"]) {
    const text =
      JSON.stringify(turns(["a1"]), null, 2).replace("ask 0", `ask${raw}0`) +
      "\n";
    const { ws, events } = await conversation(text);
    await using _ = ws;
    const result = await runJpt(["turns"], { cwd: ws.root, env: ws.env });
    assert.equal(result.code, 1);
    assert.ok(result.stderr.includes(events), result.stderr);
    assert.match(
      result.stderr,
      /Raw control character U\+000[09] in a string .* at byte \d+ \(entry 1\)/,
    );
    assert.doesNotMatch(result.stderr, /--verbose/);
    const summarize = await runJpt([...NO_SERVER, "summarize"], {
      cwd: ws.root,
      env: ws.env,
    });
    assert.equal(summarize.code, 1);
    assert.equal(await Deno.readTextFile(events), text);
  }
});

Deno.test("duplicate event ids are an error before anything is written", async () => {
  const text = JSON.stringify(turns(["same", "same"]), null, 2) + "\n";
  const { ws, events } = await conversation(text);
  await using _ = ws;
  const summarize = await runJpt([...NO_SERVER, "summarize", "--all"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(summarize.code, 1);
  // The cause is printed once, on stderr; the row says "failed (see below)".
  assert.match(summarize.stdout, /: failed \(see below\)\n/);
  assert.match(
    summarize.stderr,
    /event id "same" is used by more than one entry/,
  );
  const query = await runJpt([...NO_SERVER, "query", "hello"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(query.code, 1);
  assert.match(query.stderr, /event id "same" is used by more than one entry/);
  const edit = await runJpt(["edit", "-i"], {
    cwd: ws.root,
    env: { ...ws.env, EDITOR: "true" },
  });
  assert.equal(edit.code, 1);
  assert.equal(await Deno.readTextFile(events), text);
});

Deno.test("JSON nested deeper than jp reads is a clear error, not a stack overflow", async () => {
  const depth = 10_000;
  const entries = turns(["a1"]);
  const text = JSON.stringify(entries, null, 2).replace(
    '"content": "ask 0"',
    `"content": "ask 0",\n    "schema": ${"[".repeat(depth)}${
      "]".repeat(depth)
    }`,
  ) + "\n";
  const { ws, events } = await conversation(text);
  await using _ = ws;
  const check = await runJpt(["check"], { cwd: ws.root, env: ws.env });
  assert.equal(check.code, 1);
  assert.match(check.stdout, /nested deeper than 128 levels/);
  assert.doesNotMatch(check.stdout + check.stderr, /call stack/);
  assert.equal(await Deno.readTextFile(events), text);
});

Deno.test("a base_config.json nested 200,000 levels deep is a clear error naming the file for summarize, not a stack overflow", async () => {
  const { ws, events } = await conversation(
    JSON.stringify(turns(["a1"]), null, 2) + "\n",
  );
  await using _ = ws;
  const depth = 200_000;
  const baseConfig = join(events, "..", "base_config.json");
  await Deno.writeTextFile(
    baseConfig,
    `{"assistant": ${"[".repeat(depth)}${"]".repeat(depth)}}\n`,
  );
  const result = await runJpt(["summarize"], { cwd: ws.root, env: ws.env });
  const output = result.stdout + result.stderr;
  assert.equal(result.code, 1, output);
  assert.match(output, /base_config\.json.*nested deeper than 128 levels/);
  assert.doesNotMatch(output, /call stack|run with --verbose/);
});

Deno.test("a no-op jpt edit -i never writes: a lone surrogate is refused up front", async () => {
  const text =
    JSON.stringify(turns(["a1"]), null, 2).replace("ask 0", "ask \\ud800 0") +
    "\n";
  const { ws, events } = await conversation(text);
  await using _ = ws;
  const result = await runJpt(["edit", "-i"], {
    cwd: ws.root,
    env: { ...ws.env, EDITOR: "true" },
  });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /entry 1 holds a lone UTF-16 surrogate/);
  assert.equal(await Deno.readTextFile(events), text);
});

Deno.test("a committed link out of the workspace (.jp/conversations, or .jp) is never written through: summarize refuses it clearly, the outside tree unchanged", async () => {
  for (const linked of ["conversations", ".jp"]) {
    await using ws = await tempWorkspace();
    const outside = await Deno.makeTempDir({ prefix: "jpt-outside-" });
    try {
      // The outside tree holds what the link makes the workspace see.
      const outsideJp = linked === ".jp" ? outside : join(outside, "x");
      const conversations = join(outsideJp, "conversations");
      await Deno.mkdir(conversations, { recursive: true });
      if (linked === ".jp") {
        for (const item of Deno.readDirSync(join(ws.root, ".jp"))) {
          if (item.name === "conversations") continue;
          await Deno.rename(
            join(ws.root, ".jp", item.name),
            join(outsideJp, item.name),
          );
        }
        await Deno.remove(join(ws.root, ".jp"), { recursive: true });
        await Deno.symlink(outsideJp, join(ws.root, ".jp"));
      } else {
        await Deno.remove(ws.conversations, { recursive: true });
        await Deno.symlink(conversations, ws.conversations);
      }
      const dir = await writeConversation(
        conversations,
        "17800000000",
        new TextEncoder().encode(JSON.stringify(turns(["a1"]), null, 2)),
      );
      const events = join(dir, "events.json");
      const before = await Deno.readTextFile(events);
      await using llm = FakeLlm.start(summaryResponder());
      await Deno.writeTextFile(
        join(ws.root, ".jp", "config.toml"),
        `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${llm.url}"\n`,
      );
      const result = await runJpt(["summarize", "--all"], {
        cwd: ws.root,
        env: ws.env,
      });
      const output = result.stdout + result.stderr;
      assert.equal(result.code, 1, `${linked}: ${output}`);
      assert.match(output, /symbolic link on its way leads to .*outside/);
      assert.equal(await Deno.readTextFile(events), before, linked);
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  }
});
