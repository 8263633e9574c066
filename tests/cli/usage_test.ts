/**
 * `jpt usage`: the tokens label and title requests used, as the provider
 * reported them, per day, model and kind, with a cost where a price is set.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runJpt } from "../support/cli.ts";
import {
  chatCompletion,
  FakeLlm,
  requestedTurnIds,
  summaryResponder,
} from "../support/fake_llm.ts";
import {
  simpleTurns,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

Deno.test("jpt usage --json totals equal the tokens the server reported for turn-summary and title requests", async () => {
  const reported = { label: 0, title: 0, prompt: 0, completion: 0 };
  let n = 0;
  await using llm = FakeLlm.start((request) => {
    if (request.body?.stream) return { stream: { pieces: ["Reply."] } };
    // The context-window question is no label or title request.
    if (!request.path.endsWith("/chat/completions")) return { json: {} };
    n++;
    const usage = {
      prompt_tokens: 100 + n,
      completion_tokens: 10 + n,
      total_tokens: 110 + 2 * n,
    };
    reported.prompt += usage.prompt_tokens;
    reported.completion += usage.completion_tokens;
    const isLabel = requestedTurnIds(request).length > 0;
    reported[isLabel ? "label" : "title"] += usage.total_tokens;
    const body = isLabel
      ? summaryResponder()(request) as { json: Record<string, unknown> }
      : {
        json: chatCompletion('{"titles": ["A title"]}') as Record<
          string,
          unknown
        >,
      };
    return { json: { ...body.json, usage } };
  });
  await using ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${llm.url}"\n`,
  );
  await Deno.writeTextFile(
    join(ws.root, ".jp", "jpt.toml"),
    `[usage.prices."ollama/tiny"]\ninput = 1.0\noutput = 4.0\n`,
  );
  for (let i = 0; i < 3; i++) {
    await writeConversation(
      ws.conversations,
      `1780000000${i}`,
      simpleTurns(`u${i}`, 2),
    );
  }
  const env = {
    ...ws.env,
    JPT_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_DETACH: "false",
  };
  assert.equal(
    (await runJpt(["summarize", "--all"], { cwd: ws.root, env })).code,
    0,
  );
  assert.equal(
    (await runJpt(["query", "--new", "hello"], { cwd: ws.root, env })).code,
    0,
  );
  const result = await runJpt(["usage", "--json"], { cwd: ws.root, env });
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  const byKind = (kind: string) =>
    report.rows.filter((row: { kind: string }) => row.kind === kind)
      .reduce(
        (sum: number, row: { total_tokens: number }) => sum + row.total_tokens,
        0,
      );
  assert.equal(byKind("label"), reported.label);
  assert.equal(byKind("title"), reported.title);
  assert.ok(reported.title > 0, "the title request was accounted");
  assert.equal(report.totals.total_tokens, reported.label + reported.title);
  assert.equal(report.totals.prompt_tokens, reported.prompt);
  assert.equal(report.totals.requests, n);
  assert.equal(
    report.totals.cost.toFixed(6),
    ((reported.prompt * 1 + reported.completion * 4) / 1e6).toFixed(6),
  );
  const text = await runJpt(["usage"], { cwd: ws.root, env });
  assert.match(text.stdout, /ollama\/tiny {2}summary {2}3 request\(s\)/);
  assert.match(text.stdout, /^total {2}4 request\(s\)/m);
  const later = await runJpt(["usage", "--since", "2999-01-01", "--json"], {
    cwd: ws.root,
    env,
  });
  assert.deepEqual(JSON.parse(later.stdout).rows, []);
  const bad = await runJpt(["usage", "--since", "yesterday"], {
    cwd: ws.root,
    env,
  });
  assert.equal(bad.code, 2);
});
