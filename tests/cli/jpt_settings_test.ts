/**
 * jpt's own settings live where released jp does not read them
 * (`.jp/jpt.toml`, `$JPT_CONFIG_DIR/config.toml`, `JPT_CFG_*`), jpt writes
 * nothing jp would reject, and `jpt check` finds (and `--fix` moves) keys
 * in jp's own files that jp would reject.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { keysJpRejects } from "../../src/config/jp_known_keys.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { runJpt } from "../support/cli.ts";
import {
  chatCompletion,
  FakeLlm,
  requestedTurnIds,
  summaryResponder,
} from "../support/fake_llm.ts";
import { tempWorkspace } from "../support/workspace.ts";

const isSummary = (body: Record<string, unknown> | undefined) =>
  ((body?.messages as Array<{ content: string }> | undefined)?.[0]?.content ??
    "").startsWith("You label the turns");

function server(): FakeLlm {
  return FakeLlm.start((request) => {
    if (request.body?.stream) return { stream: { pieces: ["Sure."] } };
    if (isSummary(request.body)) return summaryResponder()(request);
    return { json: chatCompletion(JSON.stringify({ titles: ["A title"] })) };
  });
}

Deno.test("settings in .jp/jpt.toml apply: config show and the queries use them", async () => {
  await using llm = server();
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/chat"\n[providers.llm.ollama]\nbase_url = "${llm.url}"\n`,
  );
  await Deno.writeTextFile(
    join(ws.root, ".jp", "jpt.toml"),
    '[conversation.turn_summary.generate]\nbatch_size = 2\n\n[conversation.turn_summary.generate.model]\nid = "ollama/labeler"\n',
  );
  const show = await runJpt(
    [
      "config",
      "show",
      "conversation.turn_summary.generate.batch_size",
      "--json",
    ],
    { cwd: ws.root, env: ws.env },
  );
  assert.equal(show.code, 0, show.stderr);
  assert.equal(show.stdout, "2\n");
  assert.equal(show.stderr, "", "no warning: jpt.toml is jpt's own file");
  const origin = await runJpt(["config", "show", "--origin"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.match(
    origin.stdout,
    /batch_size = 2 {2}# workspace jpt \(.*jpt\.toml\)/,
  );

  for (
    const words of [["--new", "--no-title", "one"], ["two"], ["three"], [
      "four",
    ]]
  ) {
    const result = await runJpt(["query", ...words], {
      cwd: ws.root,
      env: ws.env,
    });
    assert.equal(result.code, 0, result.stderr);
  }
  const summaries = llm.chatRequests.filter((r) => isSummary(r.body));
  assert.ok(summaries.length > 0);
  for (const request of summaries) {
    assert.equal(request.body?.model, "labeler");
    assert.ok(requestedTurnIds(request).length <= 2);
  }
});

Deno.test("jpt writes no key released jp rejects into a conversation's stored config", async () => {
  await using llm = server();
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/chat"\n[providers.llm.ollama]\nbase_url = "${llm.url}"\n`,
  );
  await Deno.writeTextFile(
    join(ws.root, ".jp", "jpt.toml"),
    '[conversation.turn_summary.generate]\nbatch_size = 2\n[providers.llm.ollama]\ncontext_window = 4096\nstructured_output = "json_object"\n',
  );
  const queries = [
    ["query", "--new", "first"],
    ["query", "second"],
    [
      "--cfg",
      "conversation.turn_summary.generate.batch_size=3",
      "query",
      "third",
    ],
  ];
  for (const args of queries) {
    const result = await runJpt(args, { cwd: ws.root, env: ws.env });
    assert.equal(result.code, 0, result.stderr);
  }
  const [name] = [...Deno.readDirSync(ws.conversations)].map((e) => e.name);
  const dir = join(ws.conversations, name!);
  const base = JSON.parse(
    await Deno.readTextFile(join(dir, "base_config.json")),
  );
  assert.deepEqual(keysJpRejects(base), []);
  assert.equal(base.conversation.turn_summary, undefined);
  const stream = ConversationStream.parse(
    await Deno.readFile(join(dir, "events.json")),
  );
  for (const entry of stream.entries.filter((e) => e.type === "config_delta")) {
    assert.deepEqual(keysJpRejects(entry.data()), []);
  }
});

Deno.test("turn_summary in .jp/config.toml: a warning on use, an error in check, moved by check --fix", async () => {
  await using ws = await tempWorkspace();
  const config = join(ws.root, ".jp", "config.toml");
  const original =
    '# the team model\n[assistant.model]\nid = "ollama/chat"\n\n[conversation.turn_summary.generate]\nbatch_size = 2 # small\n\n[conversation.title]\nfrom_heading = false\n';
  await Deno.writeTextFile(config, original);
  const show = await runJpt([
    "config",
    "show",
    "conversation.turn_summary.generate.batch_size",
  ], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(show.code, 0);
  assert.match(
    show.stderr,
    /warning: .*config\.toml sets conversation\.turn_summary, which released jp rejects.*move it to \.jp\/jpt\.toml/,
  );
  assert.equal(
    show.stderr.split("\n").filter((l) => l !== "").length,
    1,
    "warned once",
  );

  const check = await runJpt(["check"], { cwd: ws.root, env: ws.env });
  assert.equal(check.code, 1);
  assert.match(
    check.stdout,
    /FAIL {2}\.jp\/config\.toml\n {2}error: conversation\.turn_summary is unknown to released jp/,
  );

  const fix = await runJpt(["check", "--fix"], { cwd: ws.root, env: ws.env });
  assert.equal(fix.code, 0, fix.stdout + fix.stderr);
  // A true unified diff of both files; the moved lines keep their comment.
  assert.ok(
    fix.stderr.includes(
      '--- .jp/config.toml\n+++ .jp/config.toml\n@@ -2,8 +2,6 @@\n [assistant.model]\n id = "ollama/chat"\n \n-[conversation.turn_summary.generate]\n-batch_size = 2 # small\n \n [conversation.title]\n from_heading = false\n',
    ),
    fix.stderr,
  );
  assert.ok(
    fix.stderr.includes(
      "--- /dev/null\n+++ .jp/jpt.toml\n@@ -0,0 +1,2 @@\n+[conversation.turn_summary.generate]\n+batch_size = 2 # small\n",
    ),
    fix.stderr,
  );
  // Everything else stays, blank lines included.
  assert.equal(
    await Deno.readTextFile(config),
    '# the team model\n[assistant.model]\nid = "ollama/chat"\n\n\n[conversation.title]\nfrom_heading = false\n',
  );
  assert.equal(
    await Deno.readTextFile(join(ws.root, ".jp", "jpt.toml")),
    "[conversation.turn_summary.generate]\nbatch_size = 2 # small\n",
  );
  const after = await runJpt([
    "config",
    "show",
    "conversation.turn_summary.generate.batch_size",
  ], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(
    after.stdout,
    "conversation.turn_summary.generate.batch_size = 2\n",
  );
  assert.equal(after.stderr, "");
});

Deno.test("jpt's user config ($JPT_CONFIG_DIR/config.toml) and JPT_CFG_* variables apply; JP_CFG_* for a jpt key warns", async () => {
  await using ws = await tempWorkspace();
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      join(dir, "config.toml"),
      "[conversation.turn_summary.generate]\nbatch_size = 7\n",
    );
    const user = await runJpt([
      "config",
      "show",
      "conversation.turn_summary.generate.batch_size",
      "--origin",
    ], {
      cwd: ws.root,
      env: { ...ws.env, JPT_CONFIG_DIR: dir },
    });
    assert.match(user.stdout, /= 7 {2}# jpt user \(/);
    const env = await runJpt([
      "config",
      "show",
      "conversation.turn_summary.generate.batch_size",
    ], {
      cwd: ws.root,
      env: {
        ...ws.env,
        JPT_CONFIG_DIR: dir,
        JPT_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_BATCH_SIZE: "9",
      },
    });
    assert.equal(
      env.stdout,
      "conversation.turn_summary.generate.batch_size = 9\n",
    );
    assert.equal(env.stderr, "");
    const jpEnv = await runJpt([
      "config",
      "show",
      "conversation.turn_summary.generate.batch_size",
    ], {
      cwd: ws.root,
      env: {
        ...ws.env,
        JP_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_BATCH_SIZE: "4",
      },
    });
    assert.match(
      jpEnv.stderr,
      /JP_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_BATCH_SIZE sets conversation\.turn_summary.*use JPT_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_BATCH_SIZE instead/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("jpt check warns about keys jp drops from a conversation's stored config", async () => {
  await using ws = await tempWorkspace();
  const dir = join(ws.conversations, "17800000000");
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    join(dir, "metadata.json"),
    '{\n  "last_activated_at": "2026-01-01 00:00:00.0"\n}\n',
  );
  await Deno.writeTextFile(
    join(dir, "base_config.json"),
    '{\n  "conversation": {\n    "turn_summary": {\n      "generate": {\n        "auto": true\n      }\n    }\n  }\n}\n',
  );
  await Deno.writeTextFile(
    join(dir, "events.json"),
    '[\n  {\n    "type": "config_delta",\n    "timestamp": "2026-01-01 00:00:00.0",\n    "delta": {\n      "providers": {\n        "llm": {\n          "openai_compat": {\n            "base_url": "http://x"\n          }\n        }\n      }\n    }\n  }\n]\n',
  );
  const result = await runJpt(["check", "--json"], { cwd: ws.root });
  assert.equal(result.code, 0, result.stdout);
  const [conversation] = JSON.parse(result.stdout).conversations;
  assert.deepEqual(conversation.warnings, [
    "base_config.json: conversation.turn_summary is unknown to jp: released jp drops it, with a warning, when it loads the conversation",
    "events.json: entry 0 (config_delta): providers.llm.openai_compat is unknown to jp: released jp drops it, with a warning, when it loads the conversation",
  ]);
});

Deno.test("check --fix keeps both files' comments and modes, never rewrites jpt.toml, and leaves a link out of the workspace alone", async () => {
  await using ws = await tempWorkspace();
  const config = join(ws.root, ".jp", "config.toml");
  const jpt = join(ws.root, ".jp", "jpt.toml");
  await Deno.writeTextFile(
    config,
    '# team settings\n[assistant.model]\nid = "ollama/chat"\n\n# how labels are made\n[conversation.turn_summary.generate]\n# small batches\nbatch_size = 2\n',
  );
  await Deno.chmod(config, 0o600);
  const mine =
    "# my own jpt settings\n[conversation.title]\nfrom_heading = false\n";
  await Deno.writeTextFile(jpt, mine);
  await Deno.chmod(jpt, 0o640);
  const fix = await runJpt(["check", "--fix"], { cwd: ws.root, env: ws.env });
  assert.equal(fix.code, 0, fix.stdout + fix.stderr);
  assert.equal(
    await Deno.readTextFile(jpt),
    `${mine}\n# how labels are made\n[conversation.turn_summary.generate]\n# small batches\nbatch_size = 2\n`,
  );
  assert.equal(
    await Deno.readTextFile(config),
    '# team settings\n[assistant.model]\nid = "ollama/chat"\n\n',
  );
  assert.equal((await Deno.stat(config)).mode! & 0o777, 0o600);
  assert.equal((await Deno.stat(jpt)).mode! & 0o777, 0o640);

  // The same table again in config.toml: it would clash, so nothing is
  // written and the keys are named to move by hand.
  await Deno.writeTextFile(
    config,
    "[conversation.turn_summary.generate]\nbatch_size = 3\n",
  );
  const before = await Deno.readTextFile(jpt);
  const clash = await runJpt(["check", "--fix"], { cwd: ws.root, env: ws.env });
  assert.match(clash.stdout + clash.stderr, /conversation\.turn_summary/);
  // The true reason, not a guess.
  assert.match(clash.stderr, /jpt\.toml already has these tables or keys/);
  assert.doesNotMatch(clash.stderr, /inline table|not a TOML file/);
  assert.equal(await Deno.readTextFile(jpt), before);

  // config.toml as a link to a file outside the workspace: not written.
  const outside = await Deno.makeTempFile({ prefix: "jpt-outside-" });
  try {
    const text = "[conversation.turn_summary.generate]\nbatch_size = 4\n";
    await Deno.writeTextFile(outside, text);
    await Deno.remove(config);
    await Deno.remove(jpt);
    await Deno.symlink(outside, config);
    const linked = await runJpt(["check", "--fix"], {
      cwd: ws.root,
      env: ws.env,
    });
    assert.notEqual(linked.code, 0);
    assert.match(linked.stdout + linked.stderr, /outside/);
    assert.equal(await Deno.readTextFile(outside), text);
    // Nothing half done: jpt.toml was not written either.
    assert.equal(await Deno.stat(jpt).then(() => true, () => false), false);
  } finally {
    await Deno.remove(outside);
  }
});
