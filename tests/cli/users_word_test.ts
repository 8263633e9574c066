/**
 * The user's word is kept (issue: every summary right): a turn summary the
 * user wrote or removed, by `jpt edit -i`, `jpt edit --events` or by hand
 * in the file, survives released jp's next save (which drops every
 * `event_id` and `summary`) and is never replaced by a model's, and
 * `jpt summarize` restores from the label store without a usable model.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { runJpt } from "../support/cli.ts";
import { FakeLlm, summaryResponder } from "../support/fake_llm.ts";
import { SCRIPTED_EDITOR } from "../support/paths.ts";
import { useFakeModel } from "../support/session.ts";
import { editBaseWorkspace, saveAsReleasedJp } from "../support/workspace.ts";

const EDITOR = SCRIPTED_EDITOR;

/** Three turns; the first two labelled by hand, the third not (`turn001`…). */
async function setUp(llmUrl: string) {
  const { ws, dir } = await editBaseWorkspace();
  await useFakeModel(ws, llmUrl);
  const run = (args: string[], env: Record<string, string> = {}) =>
    runJpt(args, { cwd: ws.root, env: { ...ws.env, ...env } });
  const edit = (args: string[], edits: unknown[]) =>
    run(["edit", ...args], {
      EDITOR,
      JPT_TEST_EDIT: JSON.stringify(edits),
    });
  const summaries = async () =>
    ConversationStream.parse(await Deno.readFile(join(dir, "events.json")))
      .turns().map((turn) => turn.summary);
  return { ws, dir, run, edit, summaries };
}

/** A model that labels each turn `Model says <id>`. */
const modelServer = () =>
  FakeLlm.start(summaryResponder((id) => `Model says ${id}`));

Deno.test("jpt edit --events: a summary the user changed is kept over the model's after a released-jp save", async () => {
  await using llm = modelServer();
  const { ws, dir, run, edit, summaries } = await setUp(llm.url);
  await using _ = ws;
  // The model labels turn 3, and the store keeps it.
  assert.equal((await run(["summarize"])).code, 0);
  assert.equal((await summaries())[2], "Model says turn003");
  const changed = await edit(["--events"], [{
    op: "replace",
    find: '"summary": "Model says turn003"',
    with: '"summary": "My own words for turn three"',
  }]);
  assert.equal(changed.code, 0, changed.stderr);
  await saveAsReleasedJp(dir);
  const asked = llm.chatRequests.length;
  const restore = await run(["summarize"]);
  assert.equal(restore.code, 0, restore.stderr);
  assert.equal((await summaries())[2], "My own words for turn three");
  assert.equal(llm.chatRequests.length, asked, "nothing asked again");
});

Deno.test("jpt edit --events: a summary the user removed does not come back after a released-jp save", async () => {
  await using llm = modelServer();
  const { ws, dir, run, edit, summaries } = await setUp(llm.url);
  await using _ = ws;
  assert.equal((await run(["summarize"])).code, 0);
  const removed = await edit(["--events"], [{
    op: "replace",
    find: ',\n    "summary": "Model says turn003"',
    with: "",
  }]);
  assert.equal(removed.code, 0, removed.stderr);
  await saveAsReleasedJp(dir);
  assert.equal((await run(["summarize"])).code, 0);
  // Asked again (a removal asks for a fresh one), never the old text back
  // from the store: the model now answers under the turn's new id.
  const third = (await summaries())[2];
  assert.notEqual(third, "Model says turn003");
  assert.match(third ?? "", /^Model says /);
});

Deno.test("jpt edit -i on turns released jp saved (no event_id): the user's header is recorded and survives the next jp save", async () => {
  await using llm = modelServer();
  const { ws, dir, run, edit, summaries } = await setUp(llm.url);
  await using _ = ws;
  await saveAsReleasedJp(dir);
  const reworded = await edit(["-i"], [{
    op: "replace",
    find: "# Turn 2: fix that warning",
    with: "# Turn 2: Fix it my way",
  }]);
  assert.equal(reworded.code, 0, reworded.stderr);
  assert.equal((await summaries())[1], "Fix it my way");
  await saveAsReleasedJp(dir);
  const asked = llm.chatRequests.length;
  assert.equal((await run(["summarize"])).code, 0);
  assert.equal((await summaries())[1], "Fix it my way");
  // Turn 1's label was dropped before jpt ever saw it: that one is asked
  // for; turn 2 never is.
  const askedAfter = llm.chatRequests.slice(asked).map((request) =>
    JSON.stringify(request.body)
  );
  assert.ok(
    askedAfter.every((body) => !body.includes("fix that warning")),
    askedAfter.join("\n"),
  );
});

Deno.test("jpt edit -i: a labelled turn without an event_id whose content changes loses its summary, as the message says", async () => {
  await using llm = modelServer();
  const { ws, dir, edit, summaries } = await setUp(llm.url);
  await using _ = ws;
  // Labels in the file, ids gone (a hand-made file, or a jp save after a restore).
  const events = join(dir, "events.json");
  const stripped = (await Deno.readTextFile(events)).replaceAll(
    /"event_id": "turn00\d",\n\s*/g,
    "",
  );
  await Deno.writeTextFile(events, stripped);
  assert.equal((await summaries())[0], "Add retry backoff to stream handler");
  const changed = await edit(["-i"], [{
    op: "replaceInFile",
    file: "^000-request\\.md$",
    find: "retries",
    with: "RETRIES",
  }]);
  assert.equal(changed.code, 0, changed.stderr);
  assert.match(changed.stderr, /changed turn 1/);
  assert.equal((await summaries())[0], undefined);
});

Deno.test("a summary written by hand into the file, seen by jpt query, survives the next jp save", async () => {
  await using llm = FakeLlm.start((request) =>
    request.body?.stream
      ? { stream: { pieces: ["Reply."] } }
      : summaryResponder((id) => `Model says ${id}`)(request)
  );
  const { ws, dir, run, summaries } = await setUp(llm.url);
  await using _ = ws;
  const events = join(dir, "events.json");
  await Deno.writeTextFile(
    events,
    (await Deno.readTextFile(events)).replace(
      '"type": "turn_start"\n  }',
      '"type": "turn_start",\n    "summary": "Written by hand"\n  }',
    ),
  );
  assert.equal((await summaries())[2], "Written by hand");
  const query = await run(["query", "next question"], {
    JPT_DRAIN_BUDGET_MS: "0",
  });
  assert.equal(query.code, 0, query.stderr);
  await saveAsReleasedJp(dir);
  assert.equal((await run(["summarize"])).code, 0);
  assert.equal((await summaries())[2], "Written by hand");
});

Deno.test("jpt summarize with no usable summary model still restores what the label store kept", async () => {
  await using llm = modelServer();
  const { ws, dir, run, summaries } = await setUp(llm.url);
  await using _ = ws;
  assert.equal((await run(["summarize"])).code, 0);
  await saveAsReleasedJp(dir);
  // No model configured any more (a fresh clone without the user's config).
  await Deno.writeTextFile(join(ws.root, ".jp", "config.toml"), "");
  const restore = await run(["summarize"]);
  assert.deepEqual(await summaries(), [
    "Add retry backoff to stream handler",
    "Fix the unused variable warning",
    "Model says turn003",
  ], restore.stderr);
  assert.equal(restore.code, 0, restore.stdout + restore.stderr);
});
