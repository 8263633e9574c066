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
    "real conversations with no summary model configured: the cause once, grouped, naming every inherited model with its origin and both fixes; rows and progress say failed (see below); totals that add up, exit 1",
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
    // The conversations store two models: both named, each with its origin.
    assert.match(
      result.stderr,
      /The summary models are inherited, none chosen for summaries:\n {4}anthropic\/claude-3-5-haiku-latest from conversation\.title\.generate\.model, set by the conversation's stored config: jp-c\d+/,
    );
    assert.match(
      result.stderr,
      /\n {4}anthropic\/claude-haiku-4-5 from conversation\.title\.generate\.model, set by the conversation's stored config: jp-c\d+/,
    );
    assert.match(
      result.stderr,
      /\[conversation\.turn_summary\.generate\.model\]/,
    );
    assert.match(result.stderr, /\(a key\)/);
    // The cause appears once: no row or progress line repeats it.
    assert.equal(
      (result.stdout + result.stderr).split("No API key for anthropic").length -
        1,
      1,
    );
    assert.equal(
      result.stdout.split("\n").filter((line) =>
        line.endsWith(": failed (see below)")
      ).length,
      dirs.length,
    );
    assert.match(
      result.stdout,
      new RegExp(
        `^Total: ${dirs.length} conversations: 0 summarized, 0 restored, 0 skipped, ${dirs.length} failed;`,
        "m",
      ),
    );
  },
});

Deno.test({
  name:
    'an oversized turn: skipped with a hint naming it, its estimate and the window; labelled with oversized = "fit"',
  ignore: FIXTURES_DIR === undefined,
  async fn() {
    const { FakeLlm, summaryResponder } = await import(
      "../support/fake_llm.ts"
    );
    await using llm = FakeLlm.start(summaryResponder());
    await using ws = await tempWorkspace();
    // A conversation with a turn larger than a request at an 8192-token
    // window (its turn 5).
    await copyConversation(
      fixtureConversations().find((dir) => dir.includes("17728322628"))!,
      ws.conversations,
    );
    const flags = [
      "--cfg",
      'conversation.turn_summary.generate.model:={"id": "ollama/tiny", "context_window": 8192}',
      "--cfg",
      `providers.llm.ollama.base_url=${llm.url}`,
    ];
    const skipped = await runJpt([...flags, "summarize", "--all"], {
      cwd: ws.root,
      env: ws.env,
    });
    assert.match(
      skipped.stdout,
      /skipped # Turn 5 \([0-9a-z]+\): oversized: ~\d+ tokens, over the \d+ a request of a 8192-token window leaves: raise context_window, or set conversation\.turn_summary\.generate\.oversized = "fit"/,
    );
    const fit = await runJpt([
      ...flags,
      "--cfg",
      "conversation.turn_summary.generate.oversized=fit",
      "summarize",
      "--all",
      "--json",
    ], { cwd: ws.root, env: ws.env });
    assert.equal(fit.code, 0, fit.stderr);
    const report = JSON.parse(fit.stdout);
    assert.ok(report.totals.summarized >= 1, fit.stdout);
    assert.equal(report.totals.skipped.oversized ?? 0, 0);
    // What was sent fitted the window.
    const sent = llm.chatRequests.at(-1)!;
    const { estimateTokens } = await import(
      "../../src/summary/token_estimate.ts"
    );
    assert.ok(estimateTokens(JSON.stringify(sent.body?.messages)) < 8192);
  },
});

Deno.test({
  name:
    "jpt watch says once which summary model was inherited from where, with the fix (the same lines as summarize); --once exits 1 as summarize does",
  ignore: FIXTURES_DIR === undefined,
  async fn() {
    await using ws = await tempWorkspace();
    const dirs = fixtureConversations();
    for (const dir of dirs) await copyConversation(dir, ws.conversations);
    const result = await runJpt(["watch", "--once"], {
      cwd: ws.root,
      env: { ...ws.env, ANTHROPIC_API_KEY: "" },
    });
    assert.equal(result.code, 1, result.stderr);
    const problems = result.stderr.split("\n").filter((line) =>
      / problem: /.test(line)
    );
    assert.equal(problems.length, 1, result.stderr);
    assert.match(problems[0]!, /No API key for anthropic/);
    assert.match(
      result.stderr,
      /The summary model anthropic\/\S+ is inherited from conversation\.title\.generate\.model, set by conversation jp-c\d+/,
    );
    assert.match(
      result.stderr,
      /\[conversation\.turn_summary\.generate\.model\]/,
    );
    const json = await runJpt(["watch", "--once", "--json"], {
      cwd: ws.root,
      env: { ...ws.env, ANTHROPIC_API_KEY: "" },
    });
    const problem = json.stdout.trim().split("\n").map((line) =>
      JSON.parse(line)
    ).find((action) => action.action === "problem");
    assert.match(problem.model, /^anthropic\//);
    assert.match(problem.model_from, /^conversation\.title\.generate\.model/);
  },
});
