/**
 * Day one on real jp data: messages that name the fix, totals that add up.
 *
 * @module
 */

import assert from "node:assert/strict";
import { runJpt } from "../support/cli.ts";
import { fixtureConversations, FIXTURES_DIR } from "../support/paths.ts";
import { copyConversation, tempWorkspace } from "../support/workspace.ts";

Deno.test({
  name:
    "real conversations with no summary model configured: one grouped message naming the inherited model and both fixes, totals that add up, exit 1",
  ignore: FIXTURES_DIR === undefined,
  async fn() {
    await using ws = await tempWorkspace();
    const dirs = fixtureConversations();
    for (const dir of dirs) await copyConversation(dir, ws.conversations);
    const result = await runJpt(["summarize", "--all"], {
      cwd: ws.root,
      env: { ...ws.env, ANTHROPIC_API_KEY: "" },
    });
    assert.equal(result.code, 1);
    const errors = result.stderr.split("\n").filter((line) =>
      line.startsWith("error:")
    );
    assert.equal(errors.length, 1, result.stderr);
    assert.match(
      errors[0]!,
      new RegExp(
        `^error: ${dirs.length} conversations: No API key for anthropic`,
      ),
    );
    assert.match(
      result.stderr,
      /The summary model anthropic\/\S+ is inherited from conversation\.title\.generate\.model, set by conversation jp-c\d+/,
    );
    assert.match(
      result.stderr,
      /\[conversation\.turn_summary\.generate\.model\]/,
    );
    assert.match(result.stderr, /its key/);
    assert.match(
      result.stdout,
      new RegExp(
        `^Total: ${dirs.length} conversations: 0 summarized, 0 restored, 0 skipped, ${dirs.length} failed;`,
        "m",
      ),
    );
  },
});
