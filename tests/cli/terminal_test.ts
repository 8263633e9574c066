/**
 * What a person sees on a terminal (through a pseudo-terminal): the spinner
 * until the first token, the line naming the conversation being continued,
 * colour only on a terminal and never under NO_COLOR, tables that fit the
 * width, and the editor when no message is given.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { runJpt } from "../support/cli.ts";
import { chatCompletion, FakeLlm } from "../support/fake_llm.ts";
import { REPO_ROOT } from "../support/paths.ts";
import { HAS_SCRIPT, runInPty } from "../support/pty.ts";
import {
  simpleTurns,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

const ESC = "\u001b";

async function workspaceWithServer(pieceDelayMs = 0, firstDelayMs = 0) {
  const server = FakeLlm.start((request) =>
    request.body?.stream
      ? {
        delayMs: firstDelayMs,
        stream: { pieces: ["Hello", " there."], pieceDelayMs },
      }
      : { json: chatCompletion(JSON.stringify({ titles: ["Greeting"] })) }
  );
  const ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n[conversation.title.generate]\nauto = false\n`,
  );
  await Deno.writeTextFile(
    join(ws.root, ".jp", "jpt.toml"),
    "[conversation.turn_summary.generate]\nauto = false\n",
  );
  return { server, ws };
}

Deno.test({
  name:
    "a spinner with elapsed time shows until the first token, then is cleared",
  ignore: !HAS_SCRIPT,
  async fn() {
    const { server, ws } = await workspaceWithServer(0, 400);
    await using _s = server;
    await using _w = ws;
    const { code, output } = await runInPty("jpt query -n 'Say hi'", {
      cwd: ws.root,
      env: { ...ws.env, NO_COLOR: "1" },
    });
    assert.equal(code, 0, output);
    assert.match(output, /waiting for ollama\/tiny \d+\.\ds/);
    const cleared = output.lastIndexOf(`\r${ESC}[K`);
    assert.ok(
      cleared >= 0 && cleared < output.indexOf("Hello there."),
      JSON.stringify(output),
    );
    const piped = await runJpt(["query", "again"], {
      cwd: ws.root,
      env: ws.env,
    });
    assert.doesNotMatch(
      piped.stderr,
      /waiting for/,
      "no spinner when not a terminal",
    );
  },
});

Deno.test({
  name:
    "continuing a conversation names it on a terminal, and off one when no conversation was named",
  ignore: !HAS_SCRIPT,
  async fn() {
    const { server, ws } = await workspaceWithServer();
    await using _s = server;
    await using _w = ws;
    const first = await runJpt(
      ["query", "-n", "--title", "Build cache", "hi"],
      {
        cwd: ws.root,
        env: ws.env,
      },
    );
    assert.equal(first.code, 0, first.stderr);
    const { output } = await runInPty("jpt query 'and then?'", {
      cwd: ws.root,
      env: { ...ws.env, NO_COLOR: "1" },
    });
    assert.match(
      output,
      /↪ continuing jp-c\d+ "Build cache" with ollama\/tiny\r\n/,
    );
    // Off a terminal: one plain line when no conversation was named.
    const piped = await runJpt(["query", "more"], {
      cwd: ws.root,
      env: ws.env,
    });
    assert.match(piped.stderr, /^continuing jp-c\d+\n$/);
    const named = await runJpt(["query", "--id", "last", "more"], {
      cwd: ws.root,
      env: ws.env,
    });
    assert.equal(named.stderr, "");
  },
});

Deno.test({
  name:
    "in a terminal jp's session names conversation A: query --new then a bare query continue the new one, and jp's session history names it",
  ignore: !HAS_SCRIPT,
  async fn() {
    const { server, ws } = await workspaceWithServer();
    await using _s = server;
    await using _w = ws;
    const a = await writeConversation(
      ws.conversations,
      "17800000000",
      simpleTurns("a", 1),
    );
    const aBefore = await Deno.readTextFile(join(a, "events.json"));
    const sessions = join(
      ws.userData,
      "workspace",
      "project-abcde",
      "sessions",
    );
    await Deno.mkdir(sessions, { recursive: true });
    // The pty's shell leads its own session: its history names A, as jp
    // wrote it.
    const { code, output } = await runInPty(
      `sid=$(ps -o sid= -p $$ | tr -d ' '); printf '{\n  "history": [\n    {\n      "id": 17800000000,\n      "activated_at": "2026-05-01T00:00:00Z"\n    }\n  ],\n  "id": "%s",\n  "source": {\n    "type": "getsid"\n  }\n}\n' "$sid" > '${sessions}'/getsid-$sid.json; echo "sid=$sid"; jpt query --new 'x'; jpt query 'y'`,
      { cwd: ws.root, env: { ...ws.env, NO_COLOR: "1" } },
    );
    assert.equal(code, 0, output);
    const sid = /sid=(\d+)/.exec(output)?.[1];
    assert.ok(sid, output);
    const ids = [...Deno.readDirSync(ws.conversations)].map((e) => e.name)
      .filter((name) => !name.startsWith("17800000000"));
    assert.equal(ids.length, 1, "one new conversation");
    const created = ids[0]!.split("-")[0]!;
    const stream = ConversationStream.parse(
      await Deno.readFile(join(ws.conversations, ids[0]!, "events.json")),
    );
    assert.equal(stream.turns().length, 2, "the bare query continued it");
    assert.equal(await Deno.readTextFile(join(a, "events.json")), aBefore);
    // jp's reader: the session's history, most recent first.
    const mapping = JSON.parse(
      await Deno.readTextFile(join(sessions, `getsid-${sid}.json`)),
    );
    assert.deepEqual(Object.keys(mapping), ["history", "id", "source"]);
    assert.deepEqual(
      mapping.history.map((entry: { id: number }) => entry.id),
      [Number(created), 17800000000],
    );
    assert.match(
      mapping.history[0].activated_at,
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/,
    );
    assert.deepEqual(mapping.source, { type: "getsid" });
  },
});

Deno.test({
  name: "colour on a terminal, none under NO_COLOR or when piped",
  ignore: !HAS_SCRIPT,
  async fn() {
    const workspace = join(REPO_ROOT, "testdata", "workspace");
    const env = {
      JP_USER_DATA_DIR: "/nonexistent",
      JP_GLOBAL_CONFIG_DIR: "/nonexistent",
    };
    const coloured = await runInPty("jpt turns; jpt check", {
      cwd: workspace,
      env,
    });
    assert.ok(
      coloured.output.includes(`${ESC}[33m[fallback]${ESC}[39m`),
      JSON.stringify(coloured.output),
    );
    assert.ok(coloured.output.includes(`${ESC}[36mk3m9x2a${ESC}[39m`));
    assert.ok(coloured.output.includes(`${ESC}[32mok  ${ESC}[39m`));
    const plain = await runInPty("jpt turns; jpt check", {
      cwd: workspace,
      env: { ...env, NO_COLOR: "1" },
    });
    assert.ok(!plain.output.includes(`${ESC}[`), JSON.stringify(plain.output));
    const piped = await runJpt(["turns"], {
      cwd: workspace,
      env: { NO_COLOR: "" },
    });
    assert.ok(!piped.stdout.includes(ESC));
  },
});

Deno.test({
  name:
    "conversation ls fits the terminal: a long title is cut with …, never wrapped",
  ignore: !HAS_SCRIPT,
  async fn() {
    await using ws = await tempWorkspace();
    const titled = (id: string, title: string, at: string) =>
      writeConversation(
        ws.conversations,
        id,
        new TextEncoder().encode("[]\n"),
        JSON.stringify({ title, last_activated_at: at }),
      );
    const list = () =>
      runInPty("jpt conversation ls", {
        cwd: ws.root,
        env: { ...ws.env, NO_COLOR: "1" },
        columns: 70,
      });
    await titled(
      "17800000000",
      "A very long title about retry backoff in the stream handler and more words",
      "2026-01-01 00:00:00.0",
    );
    const ascii = await list();
    const lines = ascii.output.split("\r\n").filter((line) =>
      line.startsWith("jp-c")
    );
    assert.equal(lines.length, 1, JSON.stringify(ascii.output));
    assert.ok(lines[0]!.length <= 70, lines[0]);
    assert.match(lines[0]!, / {2}A very long t.*…$/);
    // A wide title: each of its characters takes two columns.
    await titled(
      "17800000001",
      "日本語のタイトルはとても長いのでこの端末には収まりません",
      "2026-01-02 00:00:00.0",
    );
    const { output } = await list();
    const wideLine = output.split("\r\n").find((line) =>
      line.startsWith("jp-c17800000001")
    );
    assert.ok(wideLine !== undefined, JSON.stringify(output));
    const columnsTaken = [...wideLine].reduce(
      (sum, char) => sum + (/[\u3000-\u9fff]/.test(char) ? 2 : 1),
      0,
    );
    assert.ok(columnsTaken <= 70 && columnsTaken >= 60, wideLine);
    assert.match(wideLine, / {2}日本語.*…$/);
  },
});

Deno.test({
  name: "no message on a terminal opens the editor, and its text is sent",
  ignore: !HAS_SCRIPT,
  async fn() {
    const { server, ws } = await workspaceWithServer();
    await using _s = server;
    await using _w = ws;
    const editor = join(ws.root, "editor.sh");
    await Deno.writeTextFile(
      editor,
      "#!/bin/sh\nprintf 'Written in the editor\\n' > \"$1\"\n",
    );
    await Deno.chmod(editor, 0o755);
    const { code, output } = await runInPty("jpt query -n", {
      cwd: ws.root,
      env: { ...ws.env, NO_COLOR: "1", EDITOR: editor },
    });
    assert.equal(code, 0, output);
    const [name] = [...Deno.readDirSync(ws.conversations)].map((e) => e.name);
    const stream = ConversationStream.parse(
      await Deno.readFile(join(ws.conversations, name!, "events.json")),
    );
    assert.equal(
      stream.entries.find((e) => e.type === "chat_request")!.data().content,
      "Written in the editor",
    );
  },
});

Deno.test({
  name:
    "with -v on a terminal, log lines never land on the finishing-tasks line",
  ignore: !HAS_SCRIPT,
  async fn() {
    await using server = FakeLlm.start((request) =>
      request.body?.stream
        ? { stream: { pieces: ["ok"] } }
        : { delayMs: 1_500, json: chatCompletion("{}") }
    );
    await using ws = await tempWorkspace();
    await Deno.writeTextFile(
      join(ws.root, ".jp", "config.toml"),
      `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n[conversation.title.generate]\nauto = false\n`,
    );
    const first = await runJpt(["query", "-n", "one"], {
      cwd: ws.root,
      env: ws.env,
    });
    assert.equal(first.code, 0, first.stderr);
    const { code, output } = await runInPty("jpt -v query two", {
      cwd: ws.root,
      env: { ...ws.env, NO_COLOR: "1" },
    });
    assert.equal(code, 0, output);
    assert.match(output, /turn summaries of jp-c\d+: asking ollama\/tiny/);
    assert.doesNotMatch(output, /Finishing background tasks/);
  },
});

Deno.test({
  name:
    "on a terminal, a query on a conversation jp holds says it waits, and continues when jp releases it",
  ignore: !HAS_SCRIPT,
  async fn() {
    const { server, ws } = await workspaceWithServer();
    await using _s = server;
    await using _w = ws;
    await writeConversation(
      ws.conversations,
      "17800000000",
      simpleTurns("c", 1),
    );
    const lockFile = join(ws.root, ".jp", "locks", "jp-c17800000000.lock");
    await Deno.mkdir(join(ws.root, ".jp", "locks"));
    // jp (its locking, in Python) holds the lock for 3 s: longer than the
    // 2 s a query off a terminal waits.
    const holdLock = join(ws.root, "hold_lock.py");
    await Deno.writeTextFile(
      holdLock,
      [
        "import sys, time",
        `sys.path.insert(0, ${
          JSON.stringify(join(REPO_ROOT, "tests", "support"))
        })`,
        "from jp_lock import try_lock, unlock",
        "fd = try_lock(sys.argv[1])",
        "open(sys.argv[2], 'w').close()",
        "time.sleep(3)",
        "unlock(fd, sys.argv[1])",
        "",
      ].join("\n"),
    );
    const ready = join(ws.root, "held");
    const { code, output } = await runInPty(
      `python3 '${holdLock}' '${lockFile}' '${ready}' & ` +
        `for i in $(seq 500); do [ -e '${ready}' ] && break; sleep 0.02; done; ` +
        `jpt query --id jp-c17800000000 "Still there?"; wait`,
      { cwd: ws.root, env: { ...ws.env, NO_COLOR: "1" } },
    );
    assert.equal(code, 0, output);
    assert.match(
      output,
      /waiting for the conversation's lock \(held by pid \d+, since [^)]+\); continues when it is released/,
    );
    assert.match(output, /Hello there\./);
    const stream = ConversationStream.parse(
      await Deno.readFile(
        join(ws.conversations, "17800000000", "events.json"),
      ),
    );
    assert.equal(
      stream.entries.filter((e) => e.type === "chat_request").at(-1)!.data()
        .content,
      "Still there?",
    );
  },
});
