/**
 * `jpt summarize` across many conversations: concurrency bounded by
 * `--jobs`, deterministic JSON order, progress on stderr, totals, retries of
 * a rate limit, and a clean stop on Ctrl-C that a rerun resumes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { runJpt, spawnJpt } from "../support/cli.ts";
import {
  FakeLlm,
  peakInFlight,
  type RecordedRequest,
  requestedTurnIds,
  summaryResponder,
} from "../support/fake_llm.ts";
import { eventually } from "../support/eventually.ts";
import { HAS_SCRIPT, runInPty } from "../support/pty.ts";
import {
  simpleTurns,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

const FIRST_ID = 17758406187;

/** A workspace of `count` conversations of 3 turns, talking to `server`. */
async function workspaceOf(count: number, server: FakeLlm) {
  const ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\ncontext_window = 8192\n` +
      `[providers.llm.ollama]\nbase_url = "${server.url}"\n`,
  );
  const dirs: string[] = [];
  for (let i = 0; i < count; i++) {
    dirs.push(
      await writeConversation(
        ws.conversations,
        String(FIRST_ID + i),
        simpleTurns(`c${i}`, 3),
      ),
    );
  }
  return { ws, dirs };
}

async function summariesOf(dir: string): Promise<Array<string | undefined>> {
  const bytes = await Deno.readFile(join(dir, "events.json"));
  return ConversationStream.parse(bytes).turns().map((turn) => turn.summary);
}

const slow = (ms: number) => {
  const answer = summaryResponder();
  return async (request: RecordedRequest) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return answer(request);
  };
};

Deno.test("summarize --all --jobs N keeps N requests in flight, writes every turn, and reports in workspace order", async () => {
  await using server = FakeLlm.start(slow(150));
  const { ws, dirs } = await workspaceOf(12, server);
  await using _ = ws;
  const result = await runJpt(
    ["summarize", "--all", "--jobs", "4", "--json"],
    { cwd: ws.root, env: ws.env },
  );
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.deepEqual(
    report.conversations.map((c: { id: string }) => c.id),
    dirs.map((_, i) => `jp-c${FIRST_ID + i}`),
    "JSON lists conversations in workspace order whatever order they finished in",
  );
  assert.equal(report.totals.summarized, 36);
  for (const [i, dir] of dirs.entries()) {
    assert.deepEqual(await summariesOf(dir), [
      `Summarize turn c${i}t0`,
      `Summarize turn c${i}t1`,
      `Summarize turn c${i}t2`,
    ]);
  }
  const peak = peakInFlight(server.chatRequests);
  assert.ok(peak <= 4, `never more than --jobs in flight (${peak})`);
  assert.ok(peak >= 2, `requests overlap (${peak})`);
  // Piped stderr: one line per conversation as it finishes.
  const lines = result.stderr.trim().split("\n");
  assert.equal(lines.length, 12, result.stderr);
  assert.match(
    lines.at(-1)!,
    /^\[12\/12\] jp-c\d+: 3 summarized, 0 restored, 0 failed \(\d+:\d\d\)$/,
  );
});

Deno.test("summarize --jobs 1 is serial, and a text report ends with the totals line", async () => {
  await using server = FakeLlm.start(slow(20));
  const { ws } = await workspaceOf(3, server);
  await using _ = ws;
  const result = await runJpt(["summarize", "--all", "-j", "1"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(peakInFlight(server.chatRequests), 1);
  assert.match(
    result.stdout.trim().split("\n").at(-1)!,
    /^Total: 3 conversations: 3 summarized, 0 restored, 0 skipped, 0 failed; turns: 9 summarized, 0 restored, 0 skipped, 0 failed$/,
  );
  const again = await runJpt(["summarize", "--all", "--jobs", "0"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(again.code, 2, "--jobs 0 is a usage error");
});

Deno.test("a rate-limited backfill waits as the server asks and summarizes everything", async () => {
  // Each request is refused once, then answered: deterministic whatever the
  // order the four conversations' requests arrive in.
  const refused = new Set<string>();
  const answer = summaryResponder();
  await using server = FakeLlm.start((request) => {
    const key = requestedTurnIds(request).join(",");
    if (request.path.endsWith("/chat/completions") && !refused.has(key)) {
      refused.add(key);
      return {
        status: 429,
        headers: { "retry-after": "0" },
        json: { error: { message: "rate limited" } },
      };
    }
    return answer(request);
  });
  const { ws } = await workspaceOf(4, server);
  await using _ = ws;
  const result = await runJpt(["summarize", "--all", "--json"], {
    cwd: ws.root,
    env: { ...ws.env, JPT_MODEL_RETRIES: "3" },
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(JSON.parse(result.stdout).totals.summarized, 12);
  assert.equal(server.chatRequests.filter((r) => r.answeredAt).length, 8);
});

Deno.test("Ctrl-C stops a backfill: exit 130, files valid, answers kept, a rerun summarizes the rest", async () => {
  let answered = 0;
  const answer = summaryResponder();
  await using server = FakeLlm.start((request) =>
    // The first two conversations are answered; then the model hangs.
    ++answered <= 2 ? answer(request) : { hang: true }
  );
  const { ws, dirs } = await workspaceOf(6, server);
  await using _ = ws;
  const child = spawnJpt(["summarize", "--all", "--jobs", "2"], {
    cwd: ws.root,
    env: ws.env,
  });
  await eventually(
    "two requests hang",
    () => Promise.resolve(server.chatRequests.length >= 4),
  );
  child.kill("SIGINT");
  const output = await child.output();
  assert.equal(output.code, 130, new TextDecoder().decode(output.stderr));
  const stdout = new TextDecoder().decode(output.stdout);
  assert.match(stdout, /^Total: \d conversations?: .*; turns: 6 summarized/m);
  await eventually(
    "the hanging requests were aborted",
    () =>
      Promise.resolve(
        server.chatRequests.slice(2).every((r) => r.abortedAt !== undefined),
      ),
  );
  let labelled = 0;
  for (const dir of dirs) {
    const names = [...Deno.readDirSync(dir)].map((e) => e.name);
    assert.ok(!names.some((n) => n.endsWith(".tmp")), "no temporary file left");
    labelled += (await summariesOf(dir)).filter(Boolean).length;
  }
  assert.equal(labelled, 6, "the answers received before Ctrl-C were written");
  server.respond(summaryResponder());
  const rerun = await runJpt(["summarize", "--all", "--json"], {
    cwd: ws.root,
    env: ws.env,
  });
  assert.equal(rerun.code, 0, rerun.stderr);
  assert.equal(JSON.parse(rerun.stdout).totals.summarized, 12);
});

Deno.test({
  name:
    "on a terminal, one live progress line is redrawn and cleared before the report (at 80 columns where the terminal reports 0)",
  ignore: !HAS_SCRIPT,
  async fn() {
    for (const columns of [100, 0]) {
      await liveLine(columns);
    }
  },
});

/** One `summarize --all` in a pty of `columns` columns: its live line and report. */
async function liveLine(columns: number): Promise<void> {
  await using server = FakeLlm.start(slow(30));
  const { ws } = await workspaceOf(3, server);
  await using _ = ws;
  const { code, output } = await runInPty("jpt summarize --all --jobs 1", {
    cwd: ws.root,
    env: { ...ws.env, NO_COLOR: "1" },
    columns,
  });
  assert.equal(code, 0, output);
  assert.match(
    output,
    // deno-lint-ignore no-control-regex
    /\r\u001b\[K3\/3 conversations · 9 summarized · 0 restored · 0 failed · \d+:\d\d\r\u001b\[K/,
  );
  assert.doesNotMatch(output, /\[\d\/3\] jp-c/, "no per-conversation lines");
  assert.match(
    output,
    /Total: 3 conversations: 3 summarized, .*; turns: 9 summarized/,
  );
}

Deno.test({
  name:
    "on a terminal, a rate-limited call says it is retrying, and the live line never wraps",
  ignore: !HAS_SCRIPT,
  async fn() {
    const answer = summaryResponder();
    let refusals = 0;
    await using server = FakeLlm.start((request) =>
      refusals++ === 0
        ? {
          status: 429,
          headers: { "retry-after": "1" },
          json: { error: { message: "rate limited" } },
        }
        : answer(request)
    );
    const { ws } = await workspaceOf(2, server);
    await using _ = ws;
    const wide = await runInPty("jpt summarize --all --jobs 1", {
      cwd: ws.root,
      env: { ...ws.env, NO_COLOR: "1", JPT_MODEL_RETRIES: "3" },
      columns: 200,
    });
    assert.equal(wide.code, 0, wide.output);
    assert.match(wide.output, / · retrying in 1 s \(429\)/);
    for (const columns of [40, 60]) {
      const narrow = await workspaceOf(3, server);
      await using _n = narrow.ws;
      const { code, output } = await runInPty("jpt summarize --all --jobs 1", {
        cwd: narrow.ws.root,
        env: { ...narrow.ws.env, NO_COLOR: "1" },
        columns,
      });
      assert.equal(code, 0, output);
      const drawn = output.split("\r\u001b[K").map((part) =>
        part.split("\r\n")[0]!
      ).filter((part) => part.includes("conversations"));
      assert.ok(drawn.length > 0, JSON.stringify(output));
      for (const line of drawn) {
        assert.ok([...line].length <= columns - 1, JSON.stringify(line));
      }
    }
  },
});
