/**
 * `jpt summarize --batch-api` against a loopback Batch API: every turn is
 * summarized with no direct request, a submission survives the process
 * (`--no-wait`, then `--resume`), and results for a turn that changed in
 * between are dropped by the freshness check.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { runJpt, spawnJpt } from "../support/cli.ts";
import { eventually } from "../support/eventually.ts";
import { FakeBatchApi } from "../support/fake_batch_api.ts";
import { holdSummaryLease } from "../support/lease.ts";
import { testSession } from "../support/session.ts";
import {
  simpleTurns,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

const FIRST_ID = 17758406187;

async function setUp(count: number, api: FakeBatchApi) {
  const ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "openai/gpt-test"\ncontext_window = 8192\n`,
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
  const env = {
    ...ws.env,
    OPENAI_API_KEY: "sk-test-batch",
    OPENAI_BASE_URL: api.baseUrl,
    JPT_BATCH_POLL_SECS: "0.02",
  };
  return { ws, dirs, env };
}

async function summaries(dir: string): Promise<Array<string | undefined>> {
  return ConversationStream.parse(
    await Deno.readFile(join(dir, "events.json")),
  ).turns().map((turn) => turn.summary);
}

Deno.test("summarize --all --batch-api: 50 conversations × 3 turns through batches, no direct request", async () => {
  await using api = new FakeBatchApi();
  const { ws, dirs, env } = await setUp(50, api);
  await using _ = ws;
  const result = await runJpt(["summarize", "--all", "--batch-api", "--json"], {
    cwd: ws.root,
    env,
  });
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.ok(api.batches.length >= 1);
  assert.equal(api.directRequests, 0, "no direct summary request");
  assert.equal(report.totals.summarized, 150);
  assert.deepEqual(
    report.batches.map((b: { status: string }) => b.status),
    api.batches.map(() => "completed"),
  );
  const input = api.files.get(api.batches[0]!.inputFileId)!;
  assert.equal(input.purpose, "batch");
  const first = JSON.parse(input.text.split("\n")[0]!);
  assert.match(first.custom_id, /^jpt:\d+:[0-9a-f]{16}$/);
  assert.equal(first.url, "/v1/chat/completions");
  assert.ok(!input.text.includes("sk-test-batch"), "no key in the file");
  for (const [i, dir] of dirs.entries()) {
    assert.deepEqual(
      await summaries(dir),
      [0, 1, 2].map((t) => `Summarize turn c${i}t${t}`),
    );
  }
  assert.match(result.stderr, /batch batch_1: in_progress/);
  assert.match(
    result.stderr,
    /batch batch_1: completed, \d+\/\d+ requests done/,
  );
  const check = await runJpt(["check"], { cwd: ws.root, env });
  assert.equal(check.code, 0, check.stdout);
});

Deno.test("--no-wait then --resume applies the batch later, dropping a turn that changed meanwhile", async () => {
  await using api = new FakeBatchApi();
  const { ws, dirs, env } = await setUp(3, api);
  await using _ = ws;
  const submitted = await runJpt(
    ["summarize", "--all", "--batch-api", "--no-wait"],
    { cwd: ws.root, env },
  );
  assert.equal(submitted.code, 0, submitted.stderr);
  assert.match(
    submitted.stdout,
    /batch batch_1 \(openai\/gpt-test\): 3 request\(s\), submitted/,
  );
  assert.match(submitted.stdout, /jpt summarize --batch-api --resume/);
  assert.deepEqual(await summaries(dirs[0]!), [
    undefined,
    undefined,
    undefined,
  ]);
  // A new submission while one is pending is refused.
  const again = await runJpt(["summarize", "--all", "--batch-api"], {
    cwd: ws.root,
    env,
  });
  assert.equal(again.code, 1);
  assert.match(again.stderr, /still pending \(batch_1\).*--resume/);
  // Turn 1 of the first conversation changes before the results come back.
  const events = join(dirs[0]!, "events.json");
  await Deno.writeTextFile(
    events,
    (await Deno.readTextFile(events)).replace("question 1 of c0", "edited"),
  );
  const resumed = await runJpt(
    ["summarize", "--batch-api", "--resume", "--json"],
    { cwd: ws.root, env },
  );
  assert.equal(resumed.code, 0, resumed.stderr);
  const report = JSON.parse(resumed.stdout);
  assert.equal(report.totals.summarized, 8);
  assert.equal(report.totals.skipped.changed, 1);
  assert.deepEqual(await summaries(dirs[0]!), [
    "Summarize turn c0t0",
    undefined,
    "Summarize turn c0t2",
  ]);
  assert.equal(api.directRequests, 0);
  const nothing = await runJpt(["summarize", "--batch-api", "--resume"], {
    cwd: ws.root,
    env,
  });
  assert.equal(nothing.code, 1);
  assert.match(nothing.stderr, /No batch to resume/);
  const usage = await runJpt(["summarize", "--resume"], { cwd: ws.root, env });
  assert.equal(usage.code, 2);
});

Deno.test("Ctrl-C while waiting keeps the batch for --resume; nothing is written meanwhile", async () => {
  await using api = new FakeBatchApi();
  api.pollsBeforeDone = 1_000_000;
  const { ws, dirs, env } = await setUp(2, api);
  await using _ = ws;
  const child = spawnJpt(["summarize", "--all", "--batch-api"], {
    cwd: ws.root,
    env,
  });
  await eventually(
    "the batch is being polled",
    () =>
      Promise.resolve(
        api.batches[0]?.polls !== undefined && api.batches[0].polls > 1,
      ),
  );
  child.kill("SIGINT");
  const output = await child.output();
  const stdout = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 130, new TextDecoder().decode(output.stderr));
  assert.match(stdout, /batch batch_1 .*submitted/);
  assert.match(stdout, /--batch-api --resume/);
  assert.deepEqual(await summaries(dirs[0]!), [
    undefined,
    undefined,
    undefined,
  ]);
  api.pollsBeforeDone = 0;
  const resumed = await runJpt([
    "summarize",
    "--batch-api",
    "--resume",
    "--json",
  ], {
    cwd: ws.root,
    env,
  });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(JSON.parse(resumed.stdout).totals.summarized, 6);
  assert.equal(api.batches.length, 1, "no second batch was submitted");
});

Deno.test("while a batch is pending nothing it covers is bought directly, and its answer never replaces a label set meanwhile", async () => {
  await using api = new FakeBatchApi();
  const { ws, dirs, env } = await setUp(2, api);
  await using _ = ws;
  const submitted = await runJpt(
    ["summarize", "--all", "--batch-api", "--no-wait"],
    { cwd: ws.root, env },
  );
  assert.equal(submitted.code, 0, submitted.stderr);
  // The user labels a turn by hand while the batch is pending.
  const events = join(dirs[0]!, "events.json");
  const stream = ConversationStream.parse(await Deno.readFile(events));
  stream.setTurnSummary("c0t1", "My own label");
  await Deno.writeFile(events, stream.serialize());
  // A direct backfill and a query leave the covered turns to the batch.
  const direct = await runJpt(["summarize", "--all", "--json"], {
    cwd: ws.root,
    env,
  });
  assert.equal(direct.code, 0, direct.stderr);
  assert.equal(JSON.parse(direct.stdout).totals.summarized, 0);
  assert.equal(api.directRequests, 0, "nothing bought directly");
  const resumed = await runJpt(
    ["summarize", "--batch-api", "--resume", "--json"],
    { cwd: ws.root, env },
  );
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(JSON.parse(resumed.stdout).totals.skipped.labelled, 1);
  assert.deepEqual(await summaries(dirs[0]!), [
    "Summarize turn c0t0",
    "My own label",
    "Summarize turn c0t2",
  ]);
});

Deno.test("a batch's answers are applied under the summary lease: a conversation another summarizer holds is written after it lets go", async () => {
  await using api = new FakeBatchApi();
  const { ws, dirs, env } = await setUp(2, api);
  await using _ = ws;
  const submitted = await runJpt(
    ["summarize", "--all", "--batch-api", "--no-wait"],
    { cwd: ws.root, env },
  );
  assert.equal(submitted.code, 0, submitted.stderr);
  const lease = await holdSummaryLease(
    testSession(ws),
    ws.root,
    String(FIRST_ID),
    dirs[0]!,
  );
  const held = join(dirs[0]!, "events.json");
  const before = await Deno.readFile(held);
  const child = spawnJpt(["summarize", "--batch-api", "--resume", "--json"], {
    cwd: ws.root,
    env,
  });
  try {
    await eventually(
      "the free conversation is written",
      async () => (await summaries(dirs[1]!)).every((s) => s !== undefined),
    );
    assert.deepEqual(await Deno.readFile(held), before, "held: not written");
  } finally {
    await lease.release();
  }
  const output = await child.output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  assert.equal(
    JSON.parse(new TextDecoder().decode(output.stdout)).totals.summarized,
    6,
  );
  assert.deepEqual(
    await summaries(dirs[0]!),
    [0, 1, 2].map((t) => `Summarize turn c0t${t}`),
  );
});

Deno.test("two --batch-api submissions at once keep both batches; --resume applies both", async () => {
  await using api = new FakeBatchApi();
  const { ws, dirs, env } = await setUp(4, api);
  await using _ = ws;
  const half = (from: number) =>
    runJpt([
      "summarize",
      "--batch-api",
      "--no-wait",
      ...dirs.slice(from, from + 2).map((dir) =>
        dir.split("/").at(-1)!.split("-")[0]!
      ),
    ], { cwd: ws.root, env });
  const [a, b] = await Promise.all([half(0), half(2)]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  assert.equal(api.batches.length, 2);
  // A stray temporary file of an interrupted write is cleaned up.
  const stateDir = join(ws.env.JPT_DATA_DIR!, "batches");
  const [stateName] = [...Deno.readDirSync(stateDir)]
    .map((e) => e.name).filter((n) => n.endsWith(".json"));
  await Deno.writeTextFile(join(stateDir, `${stateName}.abc.tmp`), "{");
  const resumed = await runJpt(
    ["summarize", "--batch-api", "--resume", "--json"],
    { cwd: ws.root, env },
  );
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(JSON.parse(resumed.stdout).totals.summarized, 12);
  for (const dir of dirs) {
    assert.ok((await summaries(dir)).every((s) => s !== undefined), dir);
  }
  assert.deepEqual(
    [...Deno.readDirSync(stateDir)].filter((e) => !e.name.endsWith(".lock")),
    [],
    "the state file and the stray temporary file are gone",
  );
});

Deno.test("a submission while a batch is pending leaves the turns it holds to it and submits the rest", async () => {
  await using api = new FakeBatchApi();
  const { ws, dirs, env } = await setUp(4, api);
  await using _ = ws;
  const idOf = (dir: string) => dir.split("/").at(-1)!.split("-")[0]!;
  const first = await runJpt(
    ["summarize", "--batch-api", "--no-wait", idOf(dirs[0]!), idOf(dirs[1]!)],
    { cwd: ws.root, env },
  );
  assert.equal(first.code, 0, first.stderr);
  const second = await runJpt(
    ["summarize", "--all", "--batch-api", "--no-wait"],
    { cwd: ws.root, env },
  );
  assert.equal(second.code, 0, second.stderr);
  assert.equal(api.batches.length, 2);
  const conversationsIn = (index: number) =>
    new Set(
      api.files.get(api.batches[index]!.inputFileId)!.text.trim().split("\n")
        .map((line) => JSON.parse(line).custom_id.split(":")[1]),
    );
  assert.deepEqual(
    [...conversationsIn(1)].sort(),
    [idOf(dirs[2]!), idOf(dirs[3]!)],
    "the second batch holds only the conversations the first does not",
  );
  const resumed = await runJpt(
    ["summarize", "--batch-api", "--resume", "--json"],
    { cwd: ws.root, env },
  );
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(JSON.parse(resumed.stdout).totals.summarized, 12);
  assert.equal(api.directRequests, 0);
});

Deno.test("a damaged state file names the file and the batch; --forget drops it; a deleted conversation does not stop --resume", async () => {
  await using api = new FakeBatchApi();
  const { ws, dirs, env } = await setUp(2, api);
  await using _ = ws;
  const submitted = await runJpt(
    ["summarize", "--all", "--batch-api", "--no-wait"],
    { cwd: ws.root, env },
  );
  assert.equal(submitted.code, 0, submitted.stderr);
  // The conversation whose config chose the model is deleted: --resume still
  // reaches the endpoint the batch went to.
  await Deno.remove(dirs[0]!, { recursive: true });
  const stateDir = join(ws.env.JPT_DATA_DIR!, "batches");
  const [stateName] = [...Deno.readDirSync(stateDir)]
    .map((e) => e.name).filter((n) => n.endsWith(".json"));
  const statePath = join(stateDir, stateName!);
  const original = await Deno.readTextFile(statePath);
  const state = JSON.parse(original);
  delete state.batches[0].endpoint;
  await Deno.writeTextFile(statePath, JSON.stringify(state));
  const damaged = await runJpt(["summarize", "--batch-api", "--resume"], {
    cwd: ws.root,
    env,
  });
  assert.equal(damaged.code, 1);
  assert.ok(damaged.stderr.includes(statePath), damaged.stderr);
  assert.match(
    damaged.stderr,
    /damaged batch batch_1 \(no endpoint\).*--forget batch_1/,
  );
  await Deno.writeTextFile(statePath, original);
  const resumed = await runJpt(
    ["summarize", "--batch-api", "--resume", "--json"],
    { cwd: ws.root, env },
  );
  // The deleted conversation's answers are reported, the other's applied.
  assert.equal(resumed.code, 1, resumed.stderr);
  const report = JSON.parse(resumed.stdout);
  assert.deepEqual(
    report.conversations.map((c: { status: string }) => c.status),
    ["error", "ran"],
  );
  assert.deepEqual(await summaries(dirs[1]!), [
    "Summarize turn c1t0",
    "Summarize turn c1t1",
    "Summarize turn c1t2",
  ]);
  // --forget drops a batch without applying it.
  await writeConversation(ws.conversations, "17900000000", simpleTurns("n", 2));
  const again = await runJpt(
    ["summarize", "--all", "--batch-api", "--no-wait"],
    { cwd: ws.root, env },
  );
  assert.equal(again.code, 0, again.stderr);
  const forgot = await runJpt(
    ["summarize", "--batch-api", "--resume", "--forget", "batch_2"],
    { cwd: ws.root, env },
  );
  assert.equal(forgot.code, 0, forgot.stderr);
  assert.match(forgot.stdout, /batch_2.*forgotten/);
  const nothing = await runJpt(["summarize", "--batch-api", "--resume"], {
    cwd: ws.root,
    env,
  });
  assert.match(nothing.stderr, /No batch to resume/);
});
