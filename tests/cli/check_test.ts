import assert from "node:assert/strict";
import { join } from "node:path";
import { runJpt } from "../support/cli.ts";
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
