import assert from "node:assert/strict";
import { join } from "node:path";
import { runJpt } from "../support/cli.ts";
import { canRun } from "../support/can_run.ts";
import {
  fixtureConversations,
  FIXTURES_DIR,
  testdata,
} from "../support/paths.ts";
import {
  copyConversation,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

Deno.test({
  name: "jpt check --json passes a workspace holding every real fixture",
  ignore: FIXTURES_DIR === undefined,
  async fn() {
    await using ws = await tempWorkspace();
    for (const dir of fixtureConversations()) {
      await copyConversation(dir, ws.conversations);
    }
    const result = await runJpt(["check", "--json"], { cwd: ws.root });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const report = JSON.parse(result.stdout);
    assert.equal(report.ok, true);
    assert.equal(report.conversations.length, fixtureConversations().length);
    for (const conversation of report.conversations) {
      assert.deepEqual(conversation.errors, [], conversation.path);
    }
    const urlSafe = report.conversations.find((c: { path: string }) =>
      c.path.includes("17671120783")
    );
    assert.equal(
      urlSafe.warnings.filter((w: string) => w.includes("URL-safe")).length,
      3,
    );
  },
});

Deno.test("jpt check fails on a broken conversation and names the problem", async () => {
  await using ws = await tempWorkspace();
  await writeConversation(
    ws.conversations,
    "17758406187",
    await Deno.readFile(testdata("streams", "g4.json")),
  );
  const broken = await writeConversation(
    ws.conversations,
    "17758406188",
    new TextEncoder().encode("[\n  {"),
  );
  const result = await runJpt(["check"], { cwd: ws.root });
  assert.equal(result.code, 1);
  assert.match(result.stdout, /ok {4}\.jp\/conversations\/17758406187\n/);
  assert.match(
    result.stdout,
    /FAIL {2}\.jp\/conversations\/17758406188\n {2}error: events.json: Unexpected end of file .* at byte 5 \(entry 0\)\n/,
  );
  assert.match(result.stdout, /2 conversations checked: 1 ok, 1 failed\n$/);
  const json = JSON.parse(
    (await runJpt(["check", "--json", broken], { cwd: ws.root })).stdout,
  );
  assert.equal(json.ok, false);
  assert.equal(json.conversations[0].path, broken);
});

Deno.test("jpt check accepts conversation directories and folders of them", async () => {
  await using ws = await tempWorkspace();
  const g4 = await Deno.readFile(testdata("streams", "g4.json"));
  const one = await writeConversation(ws.userData, "17758406187", g4);
  await writeConversation(ws.userData, "17758406188", g4, "not json");
  const direct = await runJpt(["check", one], { cwd: ws.root });
  assert.equal(direct.code, 0, direct.stdout);
  const folder = await runJpt(["check", "--json", ws.userData], {
    cwd: ws.root,
  });
  const report = JSON.parse(folder.stdout);
  assert.equal(folder.code, 1);
  assert.deepEqual(report.conversations.map((c: { ok: boolean }) => c.ok), [
    true,
    false,
  ]);
  assert.match(report.conversations[1].errors[0], /^metadata.json: /);
  const nothing = await runJpt(["check", join(ws.root, "missing")], {
    cwd: ws.root,
  });
  assert.equal(nothing.code, 1);
  assert.match(nothing.stdout, /No conversation found here/);
});

Deno.test("an empty conversation directory is a warning in check, ls and summarize, never a failure", async () => {
  await using ws = await tempWorkspace();
  const [source] = [
    ...Deno.readDirSync(testdata("workspace", ".jp", "conversations")),
  ];
  await copyConversation(
    testdata("workspace", ".jp", "conversations", source!.name),
    ws.conversations,
  );
  await Deno.mkdir(join(ws.conversations, "17900000000"));
  const check = await runJpt(["check", "--json"], { cwd: ws.root });
  assert.equal(check.code, 0, check.stdout);
  const empty = JSON.parse(check.stdout).conversations.find((
    c: { path: string },
  ) => c.path.endsWith("17900000000"));
  assert.equal(empty.ok, true);
  assert.match(empty.warnings.join("\n"), /Incomplete conversation directory/);
  const ls = await runJpt(["conversation", "ls"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(ls.code, 0, ls.stderr);
  assert.match(
    ls.stderr,
    /^warning: .*17900000000: incomplete conversation directory/,
  );
  assert.match(ls.stdout, /jp-c17800000000/);
  const summarize = await runJpt(["summarize", "--all", "--dry-run"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(summarize.code, 0, summarize.stdout + summarize.stderr);
  assert.match(summarize.stdout, /jp-c17900000000: skipped: .*incomplete/);
  const turns = await runJpt(["turns"], { cwd: ws.root, env: ws.env });
  assert.equal(turns.code, 0, turns.stderr);
});

Deno.test("jpt check checks each conversation on its own: an unreadable file is one FAIL and --json still prints", async () => {
  await using ws = await tempWorkspace();
  const [source] = [
    ...Deno.readDirSync(testdata("workspace", ".jp", "conversations")),
  ];
  const good = await copyConversation(
    testdata("workspace", ".jp", "conversations", source!.name),
    ws.conversations,
  );
  const bad = join(ws.conversations, "17900000000");
  await Deno.mkdir(bad);
  await Deno.copyFile(join(good, "events.json"), join(bad, "events.json"));
  await Deno.mkdir(join(bad, "metadata.json"));
  await Deno.writeTextFile(join(good, "events.json.abc123.tmp"), "[");
  const result = await runJpt(["check", "--json"], { cwd: ws.root });
  assert.equal(result.code, 1);
  const report = JSON.parse(result.stdout);
  assert.equal(report.conversations.length, 2);
  const [first, second] = report.conversations;
  assert.equal(first.ok, true);
  assert.match(
    first.warnings.join("\n"),
    /Stray temporary file events\.json\.abc123\.tmp/,
  );
  assert.equal(second.ok, false);
  assert.match(
    second.errors.join("\n"),
    /metadata\.json: .*not a regular file \(a directory\)/,
  );

  await runJpt([
    "--cfg",
    "providers.llm.ollama.base_url=http://127.0.0.1:9",
    "summarize",
    "jp-c17800000000",
  ], { cwd: ws.root, env: ws.env });
  assert.deepEqual(
    [...Deno.readDirSync(good)].map((item) => item.name).sort(),
    ["base_config.json", "events.json", "metadata.json"],
    "summarize removed the stray temporary file under the lock",
  );
});

Deno.test({
  name:
    "jpt check fails on a config file that is no regular file and on a base_config.json jp cannot read",
  ignore: Deno.build.os === "windows",
  async fn() {
    await using ws = await tempWorkspace();
    const config = join(ws.root, ".jp", "config.toml");
    await Deno.mkdir(config);
    const dir = await runJpt(["check"], { cwd: ws.root, env: ws.env });
    assert.equal(dir.code, 1);
    assert.match(
      dir.stdout,
      /FAIL {2}\.jp\/config\.toml\n.*not a regular file \(a directory\)/,
    );
    await Deno.remove(config);
    await Deno.symlink("/dev/zero", config);
    const device = await runJpt(["check"], { cwd: ws.root, env: ws.env });
    assert.equal(device.code, 1);
    assert.match(device.stdout, /not a regular file/);
    await Deno.remove(config);
    const conversation = join(ws.conversations, "17800000000");
    await Deno.mkdir(conversation);
    await Deno.writeTextFile(join(conversation, "events.json"), "[]\n");
    await Deno.writeTextFile(
      join(conversation, "metadata.json"),
      '{"last_activated_at":"2026-01-01 00:00:00.0"}\n',
    );
    await Deno.writeTextFile(
      join(conversation, "base_config.json"),
      "[".repeat(200_000) + "]".repeat(200_000),
    );
    const deep = await runJpt(["check"], { cwd: ws.root, env: ws.env });
    assert.equal(deep.code, 1);
    assert.match(deep.stdout, /base_config\.json: JSON nested deeper than 128/);
  },
});

Deno.test("jpt check --format github: a syntax error on line 7 of events.json is an annotation on that file and line", async () => {
  await using ws = await tempWorkspace();
  const dir = join(ws.conversations, "17800000000-broken");
  await Deno.mkdir(dir);
  const lines = [
    "[",
    "  {",
    '    "timestamp": "2026-01-01 00:00:00.0",',
    '    "type": "turn_start"',
    "  },",
    "  {",
    '    "timestamp": oops,',
    '    "type": "chat_request"',
    "  }",
    "]",
  ];
  await Deno.writeTextFile(join(dir, "events.json"), lines.join("\n") + "\n");
  await Deno.writeTextFile(
    join(dir, "metadata.json"),
    '{\n  "last_activated_at": "2026-01-01 00:00:00.0"\n}\n',
  );
  const result = await runJpt(["check", "--format", "github"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(result.code, 1);
  assert.match(
    result.stdout,
    /^::error file=\.jp\/conversations\/17800000000-broken\/events\.json,line=7,col=\d+::/m,
  );
  const json = await runJpt(["check", "--format", "json"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(JSON.parse(json.stdout).ok, false);
});

Deno.test({
  name: "jpt check warns when git tracks the lock files jp and jpt keep",
  ignore: !canRun("git", ["--version"]),
  async fn() {
    await using ws = await tempWorkspace();
    const git = (args: string[]) =>
      new Deno.Command("git", {
        args,
        cwd: ws.root,
        stdout: "null",
        stderr: "null",
        env: {
          GIT_AUTHOR_NAME: "t",
          GIT_AUTHOR_EMAIL: "t@example.invalid",
          GIT_COMMITTER_NAME: "t",
          GIT_COMMITTER_EMAIL: "t@example.invalid",
        },
      }).output();
    await git(["init", "-q"]);
    await Deno.mkdir(join(ws.root, ".jp", "locks"));
    await Deno.writeTextFile(join(ws.root, ".jp", "locks", "jp-c1.lock"), "{}");
    await git(["add", ".jp"]);
    const result = await runJpt(["check"], { cwd: ws.root, env: ws.env });
    assert.match(result.stderr, /warning: .*locks: git tracks 1 lock file/);
    assert.match(result.stderr, /git rm -r --cached \.jp\/locks/);
  },
});
