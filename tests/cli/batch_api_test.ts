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
