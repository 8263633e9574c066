/**
 * `jpt watch` beside a jp emulator (tests/support/jp_emulator.ts) that
 * chats under jp's lock and re-saves the file as released jp does.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { runJpt, spawnJpt } from "../support/cli.ts";
import {
  FakeLlm,
  isSummaryRequest,
  requestedTurnIds,
  summaryResponder,
} from "../support/fake_llm.ts";
import { eventually } from "../support/eventually.ts";
import { REPO_ROOT } from "../support/paths.ts";
import { tempWorkspace, writeConversation } from "../support/workspace.ts";

const EMULATOR = join(REPO_ROOT, "tests", "support", "jp_emulator.ts");

function twoTurns(): Uint8Array {
  const entries = [0, 1].flatMap((i) => [
    { timestamp: `2026-01-01 00:00:0${i}.0`, type: "turn_start" },
    {
      timestamp: `2026-01-01 00:00:0${i}.1`,
      type: "chat_request",
      content: `first question ${i}`,
    },
    {
      timestamp: `2026-01-01 00:00:0${i}.2`,
      type: "chat_response",
      message: `answer ${i}`,
    },
  ]);
  return new TextEncoder().encode(JSON.stringify(entries, null, 2) + "\n");
}

async function setUp() {
  const server = FakeLlm.start(summaryResponder());
  const ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n`,
  );
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    twoTurns(),
  );
  await Deno.writeTextFile(join(dir, "base_config.json"), "{}\n");
  const events = join(dir, "events.json");
  const stream = async () =>
    ConversationStream.parse(await Deno.readFile(events));
  const lock = join(ws.root, ".jp", "locks", "jp-c17800000000.lock");
  await Deno.mkdir(join(ws.root, ".jp", "locks"), { recursive: true });
  return { server, ws, dir, events, stream, lock };
}

Deno.test("jpt watch labels turns, leaves a held lock alone, restores what jp's save dropped, stops on SIGTERM", async () => {
  const { server, ws, dir, stream, lock } = await setUp();
  await using _s = server;
  await using _w = ws;
  const watch = spawnJpt(["watch", "--json"], { cwd: ws.root, env: ws.env });
  const labelled = async () =>
    (await stream()).turns().every((turn) => turn.summary !== undefined);
  await eventually("existing turns summarized", labelled);
  const oldLabels = (await stream()).turns().map((turn) => turn.summary);
  const requestsBefore = server.chatRequests.filter(isSummaryRequest).length;

  // jp chats: holds the lock 3 s; the watcher must not write meanwhile.
  const emulator = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", EMULATOR, dir, lock, "3000", "1"],
    stdout: "piped",
  }).output();
  const report = JSON.parse(new TextDecoder().decode((await emulator).stdout));
  assert.equal(report.violations, 0, "no write while jp held the lock");

  await eventually(
    "the new turn labelled, the dropped ones restored",
    labelled,
  );
  const turns = (await stream()).turns();
  assert.deepEqual(turns.slice(0, 2).map((turn) => turn.summary), oldLabels);
  const sent = server.chatRequests.filter(isSummaryRequest).slice(
    requestsBefore,
  )
    .flatMap(requestedTurnIds);
  assert.equal(sent.length, 1, "only the new turn was asked for");

  watch.kill("SIGTERM");
  const [status, stdout] = await Promise.all([
    watch.status,
    new Response(watch.stdout).text(),
  ]);
  await watch.stderr.cancel();
  assert.equal(status.code, 0);
  const actions = stdout.trim().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(actions.at(-1)!.action, "stopped");
  assert.ok(actions.some((a) => a.action === "restored" && a.turns === 2));
  const check = await runJpt(["check"], { cwd: ws.root, env: ws.env });
  assert.equal(check.code, 0, check.stdout);
});

Deno.test("100 emulated jp turns against one watcher: files valid, every turn labelled, no write under a held lock", async () => {
  const { server, ws, dir, stream, lock } = await setUp();
  await using _s = server;
  await using _w = ws;
  const watch = spawnJpt(["watch", "--json"], { cwd: ws.root, env: ws.env });
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", EMULATOR, dir, lock, "20", "100"],
    stdout: "piped",
  }).output();
  const reports = new TextDecoder().decode(output.stdout).trim().split("\n")
    .map((line) => JSON.parse(line));
  assert.equal(reports.length, 100);
  assert.equal(
    reports.reduce((sum, r) => sum + r.violations, 0),
    0,
    "no write under a held lock",
  );
  // What the watcher did and said, shown when the labels do not come.
  const said = Promise.all([
    new Response(watch.stdout).text(),
    new Response(watch.stderr).text(),
  ]);
  try {
    await eventually(
      "every turn labelled",
      async () =>
        (await stream()).turns().every((turn) => turn.summary !== undefined),
      30,
    );
  } catch (error) {
    watch.kill("SIGTERM");
    await watch.status;
    const [stdout, stderr] = await said;
    throw new Error(
      `${(error as Error).message}\nwatch --json, last lines:\n${
        stdout.trim().split("\n").slice(-30).join("\n")
      }\nstderr:\n${stderr.slice(-2000)}`,
    );
  }
  assert.equal((await stream()).turns().length, 102);
  watch.kill("SIGTERM");
  assert.equal((await watch.status).code, 0);
  await said;
  const check = await runJpt(["check"], { cwd: ws.root, env: ws.env });
  assert.equal(check.code, 0, check.stdout);
});

Deno.test("jpt watch --once catches up and exits", async () => {
  const { server, ws, stream } = await setUp();
  await using _s = server;
  await using _w = ws;
  const result = await runJpt(["watch", "--once"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /jp-c17800000000 summarized 2 turns/);
  assert.ok((await stream()).turns().every((turn) => turn.summary));
});

Deno.test("model trouble: jpt watch keeps running and says so once per distinct problem", async () => {
  const { server, ws, dir, lock } = await setUp();
  await using _s = server;
  await using _w = ws;
  server.respond(() => ({ status: 500, json: { error: { message: "busy" } } }));
  const watch = spawnJpt(["watch", "--json"], { cwd: ws.root, env: ws.env });
  await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", EMULATOR, dir, lock, "10", "3"],
    stdout: "null",
  }).output();
  await eventually(
    "the watcher tried again after the changes",
    () => Promise.resolve(server.chatRequests.length >= 2),
  );
  watch.kill("SIGTERM");
  const [status, stdout] = await Promise.all([
    watch.status,
    new Response(watch.stdout).text(),
  ]);
  await watch.stderr.cancel();
  assert.equal(status.code, 0);
  const problems = stdout.trim().split("\n").map((line) => JSON.parse(line))
    .filter((a) => a.action === "problem");
  assert.equal(problems.length, 1, stdout);
  assert.match(problems[0].detail, /ollama answered HTTP 500/);
});

Deno.test("a jp save during jpt watch's first catch-up is seen: its dropped labels come back", async () => {
  // The first pass is slow (a summary takes 400 ms, 6 conversations).
  await using server = FakeLlm.start(async (request) => {
    await new Promise((resolve) => setTimeout(resolve, 400));
    return summaryResponder()(request);
  });
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n`,
  );
  const dirs: string[] = [];
  for (let i = 0; i < 6; i++) {
    dirs.push(
      await writeConversation(ws.conversations, `1780000000${i}`, twoTurns()),
    );
  }
  const labelled = async (dir: string) =>
    ConversationStream.parse(await Deno.readFile(join(dir, "events.json")))
      .turns().every((turn) => turn.summary !== undefined);
  const watch = spawnJpt(["watch"], { cwd: ws.root, env: ws.env });
  try {
    await eventually(
      "the first conversation labelled",
      () => labelled(dirs[0]!),
    );
    assert.equal(await labelled(dirs[5]!), false, "still in the first pass");
    // Released jp saves the first conversation, dropping its labels.
    const path = join(dirs[0]!, "events.json");
    const entries = JSON.parse(await Deno.readTextFile(path));
    for (const entry of entries) {
      delete entry.event_id;
      delete entry.summary;
    }
    await Deno.writeTextFile(path, JSON.stringify(entries, null, 2) + "\n");
    await eventually("every conversation labelled", async () => {
      for (const dir of dirs) if (!(await labelled(dir))) return false;
      return true;
    }, 30);
  } finally {
    watch.kill("SIGTERM");
    await watch.output();
  }
});
