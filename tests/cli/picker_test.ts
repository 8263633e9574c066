/**
 * jp's pickers in jpt: `?` and a title word open a list with type-to-filter
 * on a terminal (driven here with keystrokes in a pseudo-terminal), the turn
 * picker prints the chosen turn's id, and off a terminal a picker is a usage
 * error while a title word names the one conversation whose title holds it.
 *
 * @module
 */

import assert from "node:assert/strict";
import { runJpt } from "../support/cli.ts";
import { HAS_SCRIPT, typeInPty } from "../support/pty.ts";
import {
  simpleTurns,
  type TempWorkspace,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";

const DOWN = "\u001b[B";

/** Three conversations: "Fake news", "Fake title" and "Other", one labelled turn each but the last. */
async function titled(): Promise<TempWorkspace> {
  const ws = await tempWorkspace();
  const titles = ["Fake news", "Fake title", "Other"];
  for (const [i, title] of titles.entries()) {
    const stream = ConversationStream.parse(simpleTurns(`c${i}`, 3));
    stream.labelTurn(0, `c${i}t0`, `First step of ${title}`);
    stream.labelTurn(1, `c${i}t1`, `Decided the mutex question for ${title}`);
    await writeConversation(
      ws.conversations,
      String(17800000000 + i),
      stream.serialize(),
      JSON.stringify(
        {
          title,
          last_activated_at: `2026-01-0${i + 1} 00:00:00.0`,
        },
        null,
        2,
      ) + "\n",
    );
  }
  return ws;
}

Deno.test({
  name:
    "jpt turns ? and jpt turns <title word> pick a conversation with type-to-filter in a terminal",
  ignore: !HAS_SCRIPT,
  async fn() {
    await using ws = await titled();
    const options = { cwd: ws.root, env: { ...ws.env, NO_COLOR: "1" } };
    const byFilter = await typeInPty("jpt turns '?'", [
      { when: /Select a conversation/, keys: "other" },
      // Enter once the list shows the one match (not while it filters).
      { when: /other\n❯ jp-c17800000002 {2}Other\n\n/, keys: "\r" },
    ], options);
    assert.equal(byFilter.code, 0, byFilter.output);
    assert.match(byFilter.output, /First step of Other/);
    // A title word starts the filter: two match, the second is chosen.
    const byTitle = await typeInPty("jpt turns Fake", [
      {
        when:
          /Fake\n❯ jp-c17800000001 {2}Fake title\n {2}jp-c17800000000 {2}Fake news\n\n/,
        keys: DOWN,
      },
      { when: /❯ jp-c17800000000 {2}Fake news\n\n/, keys: "\r" },
    ], options);
    assert.equal(byTitle.code, 0, byTitle.output);
    assert.match(byTitle.output, /First step of Fake news/);
    assert.doesNotMatch(byTitle.output, /First step of Fake title/);
  },
});

Deno.test({
  name:
    "the turn picker lists turns by summary, filters as you type, and prints the chosen turn's id; show --turn ? shows it",
  ignore: !HAS_SCRIPT,
  async fn() {
    await using ws = await titled();
    const options = { cwd: ws.root, env: { ...ws.env, NO_COLOR: "1" } };
    const picked = await typeInPty("jpt pick 17800000001 > picked.txt", [
      { when: /Select a turn/, keys: "mutex" },
      {
        when:
          /mutex\n❯ Turn 2 \(c1t1\): Decided the mutex question for Fake title\n\n/,
        keys: "\r",
      },
    ], options);
    assert.equal(picked.code, 0, picked.output);
    assert.equal(
      await Deno.readTextFile(`${ws.root}/picked.txt`),
      "c1t1\n",
    );
    const shown = await typeInPty("PAGER=cat jpt show 17800000001 --turn '?'", [
      { when: /Select a turn/, keys: "first step" },
      {
        when: /step\n❯ Turn 1 \(c1t0\): First step of Fake title\n\n/,
        keys: "\r",
      },
    ], options);
    assert.equal(shown.code, 0, shown.output);
    assert.match(shown.output, /# Turn 1 \(c1t0\): First step of Fake title/);
    // Ctrl-C gives up: exit 130.
    const gaveUp = await typeInPty("jpt pick 17800000001", [
      { when: /Select a turn/, keys: "\u0003" },
    ], options);
    assert.equal(gaveUp.code, 130, gaveUp.output);
  },
});

Deno.test("off a terminal: a picker is a usage error, a title word names its one conversation, help prints the keywords", async () => {
  await using ws = await titled();
  const run = (args: string[]) => runJpt(args, { cwd: ws.root, env: ws.env });
  const picker = await run(["turns", "?"]);
  assert.equal(picker.code, 2);
  assert.match(picker.stderr, /opens a picker, which needs a terminal/);
  const other = await run(["turns", "other"]);
  assert.equal(other.code, 0, other.stderr);
  assert.match(other.stdout, /First step of Other/);
  const fake = await run(["turns", "Fake"]);
  assert.equal(fake.code, 2);
  assert.match(fake.stderr, /"Fake" is in the titles of 2 conversations/);
  const none = await run(["turns", "kestrel"]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /No conversation is "kestrel"/);
  const pick = await run(["pick", "17800000000"]);
  assert.equal(pick.code, 2);
  assert.match(pick.stderr, /The turn picker needs a terminal/);
  const help = await run(["turns", "help"]);
  assert.equal(help.code, 0, help.stderr);
  assert.match(
    help.stdout,
    /^Conversation aliases \(as in jp\):\n {2}\., active/,
  );
  assert.match(
    help.stdout,
    /\n {2}\?p, \?pinned {4}pick a pinned conversation\n/,
  );
});
