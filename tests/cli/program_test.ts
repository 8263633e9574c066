import assert from "node:assert/strict";
import { runJpt } from "../support/cli.ts";
import denoConfig from "../../deno.json" with { type: "json" };
import { tempWorkspace, writeConversation } from "../support/workspace.ts";
import { testdata } from "../support/paths.ts";

Deno.test("jpt --version prints the version from deno.json", async () => {
  const result = await runJpt(["--version"]);
  assert.equal(result.code, 0);
  assert.equal(result.stdout, `${denoConfig.version}\n`);
});

Deno.test("jpt --help and every command's --help exit 0 with usage", async () => {
  for (
    const args of [["--help"], ["turns", "--help"], ["check", "--help"], [
      "conversation",
      "ls",
      "--help",
    ]]
  ) {
    const result = await runJpt(args);
    assert.equal(result.code, 0, args.join(" "));
    assert.match(result.stdout, /^Usage: jpt/, args.join(" "));
  }
});

Deno.test("jpt exits 2 on usage errors and suggests the right command", async () => {
  const typo = await runJpt(["tunrs"]);
  assert.equal(typo.code, 2);
  assert.match(
    typo.stderr,
    /unknown command 'tunrs'\n\(Did you mean turns\?\)/,
  );
  const option = await runJpt(["turns", "--bogus"]);
  assert.equal(option.code, 2);
  assert.match(option.stderr, /unknown option '--bogus'/);
});

Deno.test("jpt conversation ls shows id, turns, activity, root and title", async () => {
  await using ws = await tempWorkspace();
  await writeConversation(
    ws.conversations,
    "17758406187-fix-it",
    await Deno.readFile(testdata("streams", "g4.json")),
    '{\n  "title": "Fix \\u001b[31mit",\n  "last_activated_at": "2026-10-30 09:59:59.0"\n}\n',
  );
  const result = await runJpt(["conversation", "ls"], { cwd: ws.root });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(
    result.stdout,
    "ID               TURNS  LAST ACTIVITY        ROOT       TITLE\n" +
      "jp-c17758406187  2      2026-10-30 10:02:00  workspace  Fix it\n",
  );
  const json = JSON.parse(
    (await runJpt(["conversation", "ls", "--json", "-w", ws.root])).stdout,
  );
  assert.deepEqual(json[0], {
    id: "jp-c17758406187",
    title: "Fix \u001b[31mit",
    turns: 2,
    last_activity: "2026-10-30 10:02:00.2",
    last_activated_at: "2026-10-30 09:59:59.0",
    roots: ["workspace"],
    path: `${ws.conversations}/17758406187-fix-it`,
    archived_at: null,
    pinned_at: null,
  });
});

Deno.test("jpt -v prints the Caused by: chain of a user error; without -v one line", async () => {
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(`${ws.root}/.jp/config.toml`, "[assistant\n");
  const quiet = await runJpt(["config", "show"], { cwd: ws.root, env: ws.env });
  assert.equal(quiet.code, 1);
  assert.match(
    quiet.stderr,
    /^error: Cannot read config "[^"]+config\.toml": /,
  );
  assert.equal(quiet.stderr.trimEnd().split("\n").length, 1, quiet.stderr);
  const verbose = await runJpt(["-v", "config", "show"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(verbose.code, 1);
  assert.match(verbose.stderr, /\n {2}Caused by: /);
  assert.doesNotMatch(verbose.stderr, /\n\s+at /, "no stack for a user error");
});

Deno.test("conversation ls orders and filters as jp's: by activity (newest last), --sort, --descending, --limit with what it hid, --archived, --local", async () => {
  await using ws = await tempWorkspace();
  const { writeConversation, simpleTurns } = await import(
    "../support/workspace.ts"
  );
  const meta = (at: string, extra = {}) =>
    JSON.stringify({ last_activated_at: at, ...extra }, null, 2) + "\n";
  const turnsAt = (n: number, day: number) => {
    const entries = JSON.parse(
      new TextDecoder().decode(simpleTurns(`d${day}`, n)),
    );
    for (const entry of entries) entry.timestamp = `2026-01-0${day} 00:00:00.0`;
    return new TextEncoder().encode(JSON.stringify(entries, null, 2) + "\n");
  };
  // Created 1, 2, 3; last active 3, 1, 2; turns 1, 3, 2.
  await writeConversation(
    ws.conversations,
    "17800000001",
    turnsAt(1, 3),
    meta("2026-01-03 00:00:00.0"),
  );
  await writeConversation(
    ws.conversations,
    "17800000002",
    turnsAt(3, 1),
    meta("2026-01-01 00:00:00.0"),
  );
  await writeConversation(
    ws.conversations,
    "17800000003",
    turnsAt(2, 2),
    meta("2026-01-02 00:00:00.0"),
  );
  const silo = `${ws.userData}/workspace/project-abcde/conversations`;
  await writeConversation(
    silo,
    "17800000004",
    turnsAt(1, 4),
    meta("2026-01-04 00:00:00.0"),
  );
  await writeConversation(
    `${ws.conversations}/.archive`,
    "17800000005",
    turnsAt(1, 5),
    meta("2026-01-05 00:00:00.0", { archived_at: "2026-02-01 00:00:00.0" }),
  );
  await writeConversation(
    `${ws.conversations}/.archive`,
    "17800000006",
    turnsAt(1, 6),
    meta("2026-01-06 00:00:00.0", { archived_at: "2026-03-01 00:00:00.0" }),
  );
  const ids = async (...args: string[]) => {
    const result = await runJpt(["conversation", "ls", "--json", ...args], {
      cwd: ws.root,
      env: ws.env,
    });
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout).map((row: { id: string }) =>
      Number(row.id.slice(-1))
    );
  };
  assert.deepEqual(await ids(), [2, 3, 1, 4]);
  assert.deepEqual(await ids("--descending"), [4, 1, 3, 2]);
  assert.deepEqual(await ids("--sort", "created"), [1, 2, 3, 4]);
  assert.deepEqual(await ids("--sort", "messages"), [1, 4, 3, 2]);
  assert.deepEqual(await ids("--limit", "2"), [1, 4]);
  assert.deepEqual(await ids("--local"), [4]);
  assert.deepEqual(await ids("--archived"), [6, 5]);
  const table = await runJpt(["conversation", "ls", "--limit", "1"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.match(table.stdout, /^\(3 hidden\)\nID +TURNS/);
  const bad = await runJpt(["conversation", "ls", "--sort", "size"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(bad.code, 2);
});

Deno.test("-q prints nothing on stderr (errors included) and keeps the exit code; --log-file writes the log lines to a file, - to stderr, as jp", async () => {
  await using ws = await tempWorkspace();
  const { FakeLlm, summaryResponder } = await import("../support/fake_llm.ts");
  const { writeConversation, simpleTurns } = await import(
    "../support/workspace.ts"
  );
  await using llm = FakeLlm.start(summaryResponder());
  await writeConversation(ws.conversations, "17800000000", simpleTurns("q", 2));
  await writeConversation(ws.conversations, "17800000001", simpleTurns("r", 2));
  await Deno.writeTextFile(
    `${ws.root}/.jp/config.toml`,
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${llm.url}"\n`,
  );
  const run = (args: string[]) => runJpt(args, { cwd: ws.root, env: ws.env });
  const quiet = await run(["-q", "turns", "17999999999"]);
  assert.equal(quiet.code, 1);
  assert.equal(quiet.stderr, "");
  const loud = await run(["turns", "17999999999"]);
  assert.match(loud.stderr, /^error: /);
  const logged = await run([
    "--log-file",
    "run.log",
    "summarize",
    "17800000000",
  ]);
  assert.equal(logged.code, 0, logged.stderr);
  const log = await Deno.readTextFile(`${ws.root}/run.log`);
  assert.ok(log.trim().split("\n").length >= 1, log);
  assert.ok(!logged.stderr.includes(log.split("\n")[0]!), "not on stderr too");
  const dash = await run(["--log-file", "-", "summarize", "17800000001"]);
  assert.equal(dash.code, 0, dash.stderr);
  assert.ok(
    dash.stderr.includes(log.split("\n")[0]!.slice(0, 20)),
    dash.stderr,
  );
});
