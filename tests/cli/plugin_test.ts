/**
 * jpt as jp command plugins, driven by a stand-in for jp's host written from
 * jp's dispatch.rs: describe, init, every request, print, log, exit codes,
 * shutdown mid-backfill, malformed host messages, the launchers, and a
 * golden transcript of `jp turns`.
 */
import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { jptEnv, runJpt, spawnJpt } from "../support/cli.ts";
import {
  FakeLlm,
  type RecordedRequest,
  requestedTurnIds,
  summaryResponder,
} from "../support/fake_llm.ts";
import { eventually } from "../support/eventually.ts";
import {
  describePlugin,
  type HostInit,
  PluginRun,
} from "../support/jp_plugin_host.ts";
import { fixtureConversations, REPO_ROOT, testdata } from "../support/paths.ts";
import {
  copyConversation,
  simpleTurns,
  type TempWorkspace,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

const PLUGINS = ["turns", "summarize", "find", "watch", "serve-turns"];
const FIRST_ID = 17758406187;

/** Installs the launchers into the workspace's temporary directory. */
async function installLaunchers(ws: TempWorkspace): Promise<string> {
  const dir = join(ws.root, "..", "plugins");
  const result = await runJpt(["plugin", "install", "--dir", dir], {
    env: ws.env,
  });
  assert.equal(result.code, 0, result.stderr);
  return dir;
}

/** A workspace with one conversation of one turn, and the launchers installed. */
async function oneConversationWithLaunchers(): Promise<
  { ws: TempWorkspace; dir: string }
> {
  const ws = await tempWorkspace();
  await writeConversation(
    ws.conversations,
    String(FIRST_ID),
    simpleTurns("a", 1),
  );
  return { ws, dir: await installLaunchers(ws) };
}

function run(
  dir: string,
  name: string,
  ws: TempWorkspace,
  init: Omit<HostInit, "root">,
  firstLine?: string,
): PluginRun {
  return new PluginRun(
    [join(dir, `jp-${name}`)],
    jptEnv(ws.env),
    { root: ws.root, userData: ws.userData, ...init },
    firstLine,
  );
}

/** Every line the plugin wrote is a protocol message with its required fields. */
function assertProtocolOnly(transcript: Array<Record<string, unknown>>) {
  for (const message of transcript) {
    switch (message.type) {
      case "print":
        assert.equal(typeof message.text, "string");
        // Plain text: no escape sequences reach jp's printer.
        assert.ok(!(message.text as string).includes("\u001b"));
        break;
      case "log":
        assert.ok(["error", "warn", "info", "debug", "trace"].includes(
          message.level as string,
        ));
        break;
      case "exit":
        assert.equal(typeof message.code, "number");
        break;
    }
  }
}

/** A model that answers each summary request after `ms`. */
function slowModel(ms: number): FakeLlm {
  const answer = summaryResponder();
  return FakeLlm.start(async (request: RecordedRequest) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return answer(request);
  });
}

/** `jp summarize ARGS` over `count` conversations of 3 turns, against `server`. */
async function slowBackfill(
  ws: TempWorkspace,
  server: FakeLlm,
  count: number,
  args: string[],
): Promise<PluginRun> {
  for (let i = 0; i < count; i++) {
    await writeConversation(
      ws.conversations,
      String(FIRST_ID + i),
      simpleTurns(`c${i}`, 3),
    );
  }
  const dir = await installLaunchers(ws);
  return run(dir, "summarize", ws, {
    args,
    config: {
      assistant: { model: { id: "ollama/slow" } },
      providers: { llm: { ollama: { base_url: server.url } } },
    },
  });
}

async function summariesOf(dir: string): Promise<Array<string | undefined>> {
  const bytes = await Deno.readFile(join(dir, "events.json"));
  return ConversationStream.parse(bytes).turns().map((turn) => turn.summary);
}

Deno.test("every plugin answers describe with its name, version, command and jp's usage line", async () => {
  await using ws = await tempWorkspace();
  const dir = await installLaunchers(ws);
  const version = JSON.parse(
    await Deno.readTextFile(join(REPO_ROOT, "deno.json")),
  ).version;
  for (const name of PLUGINS) {
    const answer = await describePlugin(
      [join(dir, `jp-${name}`)],
      jptEnv(ws.env),
    );
    assert.equal(answer.type, "describe");
    assert.equal(answer.name, name);
    assert.equal(answer.version, version);
    assert.deepEqual(answer.command, [name]);
    assert.match(
      answer.description as string,
      new RegExp(`jpt ${name === "serve-turns" ? "serve" : name}`),
    );
    assert.match(answer.help as string, new RegExp(`^Usage: jp ${name} `));
  }
});

Deno.test("jp turns <id> prints exactly what jpt turns <id> prints, as protocol lines only", async () => {
  await using ws = await tempWorkspace();
  const sources = [
    testdata(
      "workspace",
      ".jp",
      "conversations",
      "17800000000-add-retry-backoff-to-the-stream-handler",
    ),
    ...fixtureConversations(),
  ];
  for (const source of sources) {
    await copyConversation(source, ws.conversations);
  }
  const dir = await installLaunchers(ws);
  for (const source of sources) {
    const id = basename(source).split("-")[0]!;
    const direct = await runJpt(["turns", id], { cwd: ws.root, env: ws.env });
    assert.equal(direct.code, 0, direct.stderr);
    for (const args of [[id], [id, "--json"]]) {
      const viaJp = await run(dir, "turns", ws, { args }).result();
      assert.equal(viaJp.code, 0, viaJp.reason);
      const expected = args.length === 1
        ? direct.stdout
        : (await runJpt(["turns", ...args], { cwd: ws.root, env: ws.env }))
          .stdout;
      assert.equal(viaJp.content, expected, `jp turns ${args.join(" ")}`);
      assertProtocolOnly(viaJp.transcript);
    }
  }
});

Deno.test("golden transcript of jp turns", async (t) => {
  await using ws = await tempWorkspace();
  await copyConversation(
    testdata(
      "workspace",
      ".jp",
      "conversations",
      "17800000000-add-retry-backoff-to-the-stream-handler",
    ),
    ws.conversations,
  );
  const dir = await installLaunchers(ws);
  const result = await run(dir, "turns", ws, {
    args: ["17800000000"],
    logLevel: 3,
  }).result();
  await t.assertSnapshot(result.transcript);
});

Deno.test("jp summarize --all labels every turn with init.config's assistant model and init.options' batch size, asking jp which conversations exist", async () => {
  await using server = FakeLlm.start(summaryResponder());
  await using ws = await tempWorkspace();
  const dirs: string[] = [];
  for (let i = 0; i < 6; i++) {
    dirs.push(
      await writeConversation(
        ws.conversations,
        String(FIRST_ID + i),
        simpleTurns(`c${i}`, 3),
      ),
    );
  }
  const dir = await installLaunchers(ws);
  const result = await run(dir, "summarize", ws, {
    args: ["--all"],
    // jp's resolved config: no .jp/config.toml, the model comes from jp.
    config: {
      assistant: { model: { id: "ollama/plugin-model" } },
      providers: { llm: { ollama: { base_url: server.url } } },
    },
    options: {
      conversation: { turn_summary: { generate: { batch_size: 2 } } },
    },
  }).result();
  assert.equal(result.code, 0, `${result.reason}\n${result.chrome}`);
  assertProtocolOnly(result.transcript);
  assert.deepEqual(result.requests, ["list_conversations"]);
  for (const [i, conversation] of dirs.entries()) {
    assert.deepEqual(await summariesOf(conversation), [
      `Summarize turn c${i}t0`,
      `Summarize turn c${i}t1`,
      `Summarize turn c${i}t2`,
    ]);
  }
  const requests = server.chatRequests;
  assert.ok(requests.length > 0);
  for (const request of requests) {
    assert.equal(request.body?.model, "plugin-model");
    assert.ok(
      requestedTurnIds(request).length <= 2,
      "batch_size 2 from options",
    );
  }
  // Progress and the report arrive as print lines (no terminal).
  assert.match(result.content, /summarized/);
});

Deno.test("two jp summarize runs, a jpt summarize and jpt watch on the same 120 turns share the summary lease: each turn is asked for once", async () => {
  await using server = slowModel(40);
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/slow"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n`,
  );
  for (let i = 0; i < 40; i++) {
    await writeConversation(
      ws.conversations,
      String(FIRST_ID + i),
      simpleTurns(`c${i}`, 3),
    );
  }
  const launchers = await installLaunchers(ws);
  const plugin = () =>
    run(launchers, "summarize", ws, {
      args: ["--all"],
      config: {
        assistant: { model: { id: "ollama/slow" } },
        providers: { llm: { ollama: { base_url: server.url } } },
      },
    });
  const first = plugin();
  const second = plugin();
  const cli = spawnJpt(["summarize", "--all"], { cwd: ws.root, env: ws.env });
  const watch = spawnJpt(["watch", "--once"], { cwd: ws.root, env: ws.env });
  const [a, b, c, w] = await Promise.all([
    first.result(),
    second.result(),
    cli.output(),
    watch.output(),
  ]);
  assert.equal(a.code, 0, a.reason);
  assert.equal(b.code, 0, b.reason);
  assert.equal(c.code, 0, new TextDecoder().decode(c.stderr));
  assert.equal(w.code, 0, new TextDecoder().decode(w.stderr));
  const asked = new Map<string, number>();
  for (const request of server.chatRequests) {
    for (const id of requestedTurnIds(request)) {
      asked.set(id, (asked.get(id) ?? 0) + 1);
    }
  }
  assert.equal(asked.size, 120, "every turn asked for");
  assert.ok(server.chatRequests.length <= 40, `${server.chatRequests.length}`);
  const twice = [...asked].filter(([, times]) => times > 1);
  assert.deepEqual(twice, [], "no turn asked for twice");
  for (let i = 0; i < 40; i++) {
    const dir = join(ws.conversations, String(FIRST_ID + i));
    assert.ok((await summariesOf(dir)).every((s) => s !== undefined), dir);
  }
});

Deno.test("shutdown in the middle of a backfill: exit 130 within jp's grace, nothing killed, every file valid", async () => {
  await using server = slowModel(2000);
  await using ws = await tempWorkspace();
  const plugin = await slowBackfill(ws, server, 60, ["--all"]);
  // Well into the run (about 3 s with a 2 s model): labels have been
  // written and the next requests are in flight.
  await eventually(
    "answered requests and more in flight",
    () =>
      Promise.resolve(
        server.chatRequests.some((request) =>
          request.answeredAt !== undefined
        ) &&
          server.chatRequests.some((request) =>
            request.answeredAt === undefined
          ),
      ),
  );
  plugin.shutdown();
  const result = await plugin.result();
  assert.equal(result.killed, false, "the plugin ended before jp's 5 s kill");
  assert.equal(result.code, 130);
  // Some conversations were labelled before the stop.
  assert.match(result.content + result.chrome, /jp-c\d+/);
  assert.equal(result.transcript.at(-1)?.type, "exit");
  assertProtocolOnly(result.transcript);
  const check = await runJpt(["check"], { cwd: ws.root, env: ws.env });
  assert.equal(check.code, 0, check.stdout + check.stderr);
});

Deno.test("log messages follow jp's log_level; failures end with a code and a reason", async () => {
  const { ws, dir } = await oneConversationWithLaunchers();
  await using _ = ws;
  const quiet = await run(dir, "turns", ws, { args: [], logLevel: 0 }).result();
  assert.equal(quiet.code, 0, quiet.reason);
  assert.deepEqual(quiet.logs, []);
  const debug = await run(dir, "turns", ws, { args: [], logLevel: 3 }).result();
  assert.ok(debug.logs.some((log) => log.level === "debug"));

  const missing = await run(dir, "turns", ws, { args: ["17000000000"] })
    .result();
  assert.equal(missing.code, 1);
  assert.match(missing.reason ?? "", /No conversation "17000000000"/);
  const usage = await run(dir, "turns", ws, { args: ["--no-such-flag"] })
    .result();
  assert.equal(usage.code, 2);
  const none = await run(dir, "find", ws, { args: ["zzz-nothing"] }).result();
  assert.equal(none.code, 1, "find exits 1 when nothing matched, as grep");
});

Deno.test("malformed host messages end the run with a reason, never a hang", async () => {
  const { ws, dir } = await oneConversationWithLaunchers();
  await using _ = ws;
  const cases: Array<[string, RegExp]> = [
    ["this is not json", /cannot read: not JSON/],
    ['{"type":"teleport"}', /unknown message type "teleport"/],
    ['{"type":"init","version":1}', /"workspace" is missing/],
    [
      JSON.stringify({
        type: "init",
        version: 2,
        workspace: { root: ws.root, storage: "", id: "x" },
        config: {},
      }),
      /protocol version 2/,
    ],
    ['{"type":"config","data":{}}', /sent config before init/],
  ];
  for (const [line, reason] of cases) {
    const result = await run(dir, "turns", ws, {}, line).result();
    assert.equal(result.code, 1, line);
    assert.match(result.reason ?? "", reason, line);
    assert.equal(result.transcript.at(-1)?.type, "exit", line);
  }
});

Deno.test("a malformed message during a run stops it with a reason", async () => {
  await using server = slowModel(1000);
  await using ws = await tempWorkspace();
  const plugin = await slowBackfill(ws, server, 4, ["--all", "--jobs", "1"]);
  await eventually(
    "the first summary request",
    () => Promise.resolve(server.chatRequests.length > 0),
  );
  plugin.send("{oops");
  const result = await plugin.result();
  assert.notEqual(result.code, 0);
  assert.match(result.reason ?? "", /cannot read/);
  assert.equal(result.killed, false);
});

Deno.test("plugin install writes executable launchers, refuses another program's file, uninstall removes only its own", async () => {
  await using ws = await tempWorkspace();
  const dir = join(ws.root, "..", "plugins");
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, "jp-find"), "#!/bin/sh\necho other\n");
  const refused = await runJpt(["plugin", "install", "--dir", dir], {
    env: ws.env,
  });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /jp-find was not written by jpt.*--force/);
  const listed = await runJpt(["plugin", "list", "--dir", dir, "--json"], {
    env: ws.env,
  });
  assert.deepEqual(
    JSON.parse(listed.stdout).map((s: { state: string }) => s.state),
    ["missing", "missing", "foreign", "missing", "missing"],
  );
  const forced = await runJpt(["plugin", "install", "--dir", dir, "--force"], {
    env: ws.env,
  });
  assert.equal(forced.code, 0, forced.stderr);
  for (const name of PLUGINS) {
    const info = await Deno.stat(join(dir, `jp-${name}`));
    assert.equal((info.mode ?? 0) & 0o111, 0o111, `jp-${name} is executable`);
  }
  // Started by hand (a terminal would be standard input), it says what it is.
  const byHand = await new Deno.Command(join(dir, "jp-turns"), {
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: jptEnv(ws.env),
    clearEnv: true,
  }).output();
  assert.equal(byHand.code, 1);
  const removed = await runJpt(["plugin", "uninstall", "--dir", dir], {
    env: ws.env,
  });
  assert.equal(removed.stdout.trim().split("\n").length, PLUGINS.length);
  // The default directory is jp's: <JP_USER_DATA_DIR>/plugins/command.
  const home = await runJpt(["plugin", "install"], { env: ws.env });
  assert.equal(home.code, 0, home.stderr);
  assert.match(
    home.stdout,
    new RegExp(`${ws.userData}/plugins/command/jp-turns`),
  );
});

Deno.test("jpt's single-conversation commands follow jp's session: `.` is the terminal's active conversation (getsid)", async () => {
  const ps = await new Deno.Command("ps", {
    args: ["-o", "sid=", "-p", String(Deno.pid)],
    stdout: "piped",
    stderr: "null",
  }).output().catch(() => undefined);
  const sid = ps?.success ? new TextDecoder().decode(ps.stdout).trim() : "";
  if (!/^\d+$/.test(sid)) {
    console.log("SKIP: no ps here to learn the session id");
    return;
  }
  await using ws = await tempWorkspace();
  await writeConversation(
    ws.conversations,
    String(FIRST_ID),
    simpleTurns("a", 1),
  );
  await writeConversation(
    ws.conversations,
    String(FIRST_ID + 1),
    simpleTurns("b", 1),
    '{\n  "last_activated_at": "2026-06-01 00:00:00.0"\n}\n',
  );
  const silo = join(ws.userData, "workspace", "project-abcde", "sessions");
  await Deno.mkdir(silo, { recursive: true });
  await Deno.writeTextFile(
    join(silo, `getsid-${sid}.json`),
    JSON.stringify(
      {
        history: [{ id: FIRST_ID, activated_at: "2026-05-01T00:00:00Z" }],
        id: sid,
        source: { type: "getsid" },
      },
      null,
      2,
    ) + "\n",
  );
  // jpt runs in this test's terminal session: its active conversation is the
  // older one, not the most recently activated.
  for (const args of [["turns", "."], ["turns"]]) {
    const result = await runJpt(args, { cwd: ws.root, env: ws.env });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /question 0 of a/, args.join(" "));
  }
  // $JP_SESSION names another session, which has no history.
  const other = await runJpt(["turns", "."], {
    cwd: ws.root,
    env: { ...ws.env, JP_SESSION: "elsewhere" },
  });
  assert.equal(other.code, 1);
  assert.match(other.stderr, /No active conversation in this terminal session/);
});

Deno.test("plugin install never writes through a link: refused without --force, the link itself replaced with it; a directory is one clear error everywhere", async () => {
  await using ws = await tempWorkspace();
  const dir = join(ws.root, "..", "plugins");
  await Deno.mkdir(dir, { recursive: true });
  // A link to the user's own file, and one to a launcher elsewhere.
  const users = join(ws.root, "..", "my-notes.txt");
  await Deno.writeTextFile(users, "my notes\n");
  await Deno.symlink(users, join(dir, "jp-turns"));
  const refused = await runJpt(["plugin", "install", "--dir", dir], {
    env: ws.env,
  });
  assert.equal(refused.code, 1);
  assert.match(
    refused.stderr,
    /jp-turns \(a symbolic link → .*my-notes\.txt\)/,
  );
  assert.equal(await Deno.readTextFile(users), "my notes\n");
  const forced = await runJpt(["plugin", "install", "--dir", dir, "--force"], {
    env: ws.env,
  });
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal(await Deno.readTextFile(users), "my notes\n", "never through");
  assert.equal(((await Deno.stat(users)).mode ?? 0) & 0o111, 0, "mode kept");
  const launcher = await Deno.lstat(join(dir, "jp-turns"));
  assert.ok(launcher.isFile && !launcher.isSymlink, "the link itself replaced");
  // A directory where a launcher goes.
  await Deno.remove(join(dir, "jp-find"));
  await Deno.mkdir(join(dir, "jp-find"));
  for (const args of [["install"], ["install", "--force"], ["uninstall"]]) {
    const result = await runJpt(["plugin", ...args, "--dir", dir], {
      env: ws.env,
    });
    const output = result.stdout + result.stderr;
    if (args[0] === "install") {
      assert.equal(result.code, 1, output);
      assert.match(output, /jp-find is a directory.*move it away/);
    } else assert.equal(result.code, 0, output);
    assert.doesNotMatch(output, /os error|Is a directory \(/);
  }
  const listed = await runJpt(["plugin", "list", "--dir", dir, "--json"], {
    env: ws.env,
  });
  assert.equal(listed.code, 0, listed.stderr);
  assert.ok(
    JSON.parse(listed.stdout).some((s: { state: string }) =>
      s.state === "directory"
    ),
  );
});

Deno.test("shutdown ends a run whatever jp has not answered: exit 130 within jp's grace, never killed", async () => {
  const { ws, dir } = await oneConversationWithLaunchers();
  await using _ = ws;
  const plugin = run(dir, "summarize", ws, { args: ["--all"], silent: true });
  await eventually(
    "the request jp will never answer",
    () => Promise.resolve(plugin.requests.includes("list_conversations")),
  );
  plugin.shutdown();
  const result = await plugin.result();
  assert.equal(result.killed, false, "ended before jp's grace ran out");
  assert.equal(result.code, 130, result.stderr);
  assert.doesNotMatch(result.stderr, /Uncaught|stack/i);
});

Deno.test("a host that closes both pipes mid-run ends the plugin with exit 130 and no stack", async () => {
  await using server = slowModel(1000);
  await using ws = await tempWorkspace();
  for (let i = 0; i < 3; i++) {
    await writeConversation(
      ws.conversations,
      String(FIRST_ID + i),
      simpleTurns(`p${i}`, 2),
    );
  }
  const dir = await installLaunchers(ws);
  const child = new Deno.Command(join(dir, "jp-summarize"), {
    cwd: ws.root,
    clearEnv: true,
    env: jptEnv(ws.env),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const writer = child.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode(
      JSON.stringify({
        type: "init",
        version: 1,
        workspace: { root: ws.root, storage: join(ws.root, ".jp"), id: "x" },
        paths: { user_data: ws.userData },
        config: {
          assistant: { model: { id: "ollama/slow" } },
          providers: { llm: { ollama: { base_url: server.url } } },
        },
        args: [String(FIRST_ID), String(FIRST_ID + 1), String(FIRST_ID + 2)],
        log_level: 0,
      }) + "\n",
    ),
  );
  await eventually(
    "the first summary request",
    () => Promise.resolve(server.chatRequests.length > 0),
  );
  // jp goes away: both of its ends closed.
  await child.stdout.cancel();
  await writer.close();
  const status = await child.status;
  const errors = await stderr;
  assert.equal(status.code, 130, errors);
  assert.doesNotMatch(errors, /Uncaught|BrokenPipe|\bat \S+:\d+/);
});

Deno.test("jp turns --help through the plugin names jp's command, not jpt's", async () => {
  await using ws = await tempWorkspace();
  const dir = await installLaunchers(ws);
  const result = await run(dir, "turns", ws, { args: ["--help"] }).result();
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.content, /^Usage: jp turns /m);
  assert.doesNotMatch(result.content, /Usage: jpt /);
});
