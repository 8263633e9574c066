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
