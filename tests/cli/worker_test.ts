/**
 * `jpt query` exits right after the reply and hands unfinished background
 * work to a detached worker, which writes later, under the lock, with the
 * freshness check; a held lock is waited for up to a bound, and what it
 * cannot write stays in the label store.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { runJpt, spawnJpt } from "../support/cli.ts";
import { canRun } from "../support/can_run.ts";
import {
  chatCompletion,
  FakeLlm,
  isSummaryRequest,
  type RecordedRequest,
  requestedTurnIds,
  summaryResponder,
} from "../support/fake_llm.ts";
import { eventually } from "../support/eventually.ts";
import { tempWorkspace } from "../support/workspace.ts";

const LINUX = Deno.build.os === "linux";
const HAS_FLOCK = canRun("flock", ["--version"]);

/** A server: quick chat replies, summaries after `summaryDelayMs`. */
function server(summaryDelayMs: number): FakeLlm {
  return FakeLlm.start(async (request) => {
    if (request.body?.stream) return { stream: { pieces: ["Reply."] } };
    if (!isSummaryRequest(request)) return { json: chatCompletion("{}") };
    await new Promise((resolve) => setTimeout(resolve, summaryDelayMs));
    return summaryResponder()(request);
  });
}

async function setUp(llm: FakeLlm, extraEnv: Record<string, string> = {}) {
  const ws = await tempWorkspace();
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${llm.url}"\n[conversation.title.generate]\nauto = false\n`,
  );
  const env: Record<string, string> = {
    ...ws.env,
    JPT_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_DETACH: "true",
    ...extraEnv,
  };
  const query = (words: string[]) =>
    runJpt(["query", ...words], { cwd: ws.root, env });
  const first = await query(["--new", "first question"]);
  assert.equal(first.code, 0, first.stderr);
  const [name] = [...Deno.readDirSync(ws.conversations)].map((e) => e.name);
  const dir = join(ws.conversations, name!);
  const events = join(dir, "events.json");
  const summaryOfTurn1 = async () =>
    ConversationStream.parse(await Deno.readFile(events)).turns()[0]!.summary;
  const lock = join(ws.root, ".jp", "locks", `jp-c${name!.split("-")[0]}.lock`);
  const log = join(env.JPT_DATA_DIR!, "worker.log");
  return { ws, env, query, dir, events, summaryOfTurn1, lock, log };
}

/** The pid of the worker that logged it started. */
async function workerPid(log: string): Promise<number> {
  let pid = 0;
  await eventually("the worker started", async () => {
    const text = await Deno.readTextFile(log).catch(() => "");
    pid = Number(/\[(\d+)\] started/.exec(text)?.[1] ?? 0);
    return pid > 0;
  });
  return pid;
}

Deno.test("with the summary slower than the turn, the pipes close right after the reply and the summary lands later", async () => {
  await using llm = server(2_000);
  const { ws, env, query, summaryOfTurn1, log } = await setUp(llm);
  await using _ = ws;
  const second = await query(["second question"]);
  // runJpt read stdout and stderr to their end: the query is gone.
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.stdout, "Reply.\n");
  // The query did not wait for the summary (its worker asks for it).
  assert.ok(
    llm.chatRequests.filter(isSummaryRequest).every((r) =>
      r.answeredAt === undefined
    ),
  );
  await eventually(
    "the summary landed",
    async () => (await summaryOfTurn1()) !== undefined,
  );
  assert.match(await Deno.readTextFile(log), /started for \d+/);
  await eventually(
    "the worker logged its end",
    async () => /\] done\n$/.test(await Deno.readTextFile(log)),
  );
  // `jpt log` shows the last lines of that file.
  const shown = await runJpt(["log", "-n", "2"], { cwd: ws.root, env });
  assert.equal(shown.code, 0, shown.stderr);
  assert.deepEqual(
    shown.stdout,
    (await Deno.readTextFile(log)).split("\n").slice(-3).join("\n"),
  );
  const check = await runJpt(["check"], { cwd: ws.root, env: ws.env });
  assert.equal(check.code, 0, check.stdout);
});

Deno.test("Ctrl-C mid-reply: the partial reply is stored, exit 130 at once, the pending summary goes to a worker", async () => {
  await using llm = server(2_000);
  const { ws, env, events, summaryOfTurn1, log } = await setUp(llm);
  await using _ = ws;
  llm.respond(async (request) => {
    if (request.body?.stream) {
      return {
        stream: { pieces: ["partial ", "never ", "ends"], pieceDelayMs: 400 },
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    return summaryResponder()(request);
  });
  const child = spawnJpt(["query", "second question"], { cwd: ws.root, env });
  const reader = child.stdout.getReader();
  assert.match(
    new TextDecoder().decode((await reader.read()).value),
    /partial/,
  );
  child.kill("SIGINT");
  reader.releaseLock();
  const output = await child.output();
  assert.equal(output.code, 130);
  const turns = ConversationStream.parse(await Deno.readFile(events)).turns();
  const reply = turns[1]!.events.find((e) => e.type === "chat_response")!
    .data().message as string;
  assert.ok(reply.startsWith("partial") && !reply.includes("ends"), reply);
  assert.equal(
    llm.chatRequests.filter(isSummaryRequest)[0]?.answeredAt,
    undefined,
    "the query did not wait for the summary",
  );
  await eventually(
    "the worker's summary landed",
    async () => (await summaryOfTurn1()) !== undefined,
  );
  assert.match(await Deno.readTextFile(log), /started for \d+/);
});

Deno.test({
  name:
    "a worker waits for a jp-style flock holder and writes after its release",
  ignore: !HAS_FLOCK,
  async fn() {
    await using llm = server(300);
    const { ws, query, events, summaryOfTurn1, lock, log } = await setUp(llm);
    await using _ = ws;
    const second = await query(["second question"]);
    assert.equal(second.code, 0, second.stderr);
    const held = new Deno.Command("flock", {
      args: ["--exclusive", lock, "sleep", "2"],
    }).spawn();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const whileHeld = await Deno.readTextFile(events);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(
      await Deno.readTextFile(events),
      whileHeld,
      "no write while held",
    );
    await held.status;
    await eventually(
      "written after release",
      async () => (await summaryOfTurn1()) !== undefined,
    );
    // Done, it exits: no timer or listener keeps it alive after its write
    // (the lock wait's 60 s and the 180 s limit are the timers that could;
    // 10 s leaves room for a loaded machine and none for them).
    const pid = await workerPid(log);
    await eventually("the worker exited", () => isGone(pid), 10);
    const check = await runJpt(["check"], { cwd: ws.root, env: ws.env });
    assert.equal(check.code, 0, check.stdout);
  },
});

/** Whether a process is gone (`kill -0` fails). */
async function isGone(pid: number): Promise<boolean> {
  const output = await new Deno.Command("kill", {
    args: ["-0", String(pid)],
    stdout: "null",
    stderr: "null",
  }).output();
  return !output.success;
}

Deno.test({
  name:
    "a lock held past the worker's bound: no write, the label kept in the store, the next query restores it with no request",
  ignore: !HAS_FLOCK,
  async fn() {
    let lockPath = "";
    let holder: Deno.ChildProcess | undefined;
    await using llm = FakeLlm.start(async (request) => {
      if (request.body?.stream) return { stream: { pieces: ["Reply."] } };
      if (!isSummaryRequest(request)) return { json: chatCompletion("{}") };
      if (holder === undefined && lockPath !== "") {
        // jp takes the lock while the worker's request is out.
        holder = new Deno.Command("flock", {
          args: ["--exclusive", lockPath, "sleep", "3"],
        }).spawn();
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      return summaryResponder()(request);
    });
    const { ws, env, summaryOfTurn1, lock, log } = await setUp(llm, {
      JPT_WORKER_LOCK_WAIT_MS: "300",
    });
    await using _ = ws;
    await Deno.writeTextFile(
      join(ws.root, ".jp", "jpt.toml"),
      "[conversation.turn_summary.generate]\nbatch_size = 1\n",
    );
    lockPath = lock;
    // The worker asks for turn 1 from the start of the query.
    const second = await runJpt(["query", "second question"], {
      cwd: ws.root,
      env,
    });
    assert.equal(second.code, 0, second.stderr);
    await eventually(
      "the worker gave up",
      async () =>
        /still locked/.test(await Deno.readTextFile(log).catch(() => "")),
    );
    await holder?.status;
    assert.equal(await summaryOfTurn1(), undefined, "nothing written");
    const asked = llm.chatRequests.filter(isSummaryRequest).length;
    const third = await runJpt(["query", "third question"], {
      cwd: ws.root,
      env: { ...env, JPT_DRAIN_BUDGET_MS: "0" },
    });
    assert.equal(third.code, 0, third.stderr);
    const turn1 = ConversationStream.parse(
      await Deno.readFile(join(
        ws.conversations,
        [
          ...Deno.readDirSync(ws.conversations),
        ][0]!.name,
        "events.json",
      )),
    ).turns()[0]!;
    assert.equal(
      turn1.summary,
      `Summarize turn ${turn1.id}`,
      "restored from the store with the query's request save",
    );
    const sentAfter = llm.chatRequests.filter(isSummaryRequest).slice(asked)
      .flatMap(requestedTurnIds);
    assert.ok(!sentAfter.includes(turn1.id!), `not asked again: ${sentAfter}`);
  },
});

Deno.test({
  name:
    "a worker killed with SIGKILL mid-request leaves every file valid; the next query does the work",
  ignore: !LINUX,
  async fn() {
    // Summaries hang (until the server closes) while the worker waits.
    await using llm = FakeLlm.start((request) =>
      request.body?.stream
        ? { stream: { pieces: ["Reply."] } }
        : isSummaryRequest(request)
        ? { hang: true }
        : { json: chatCompletion("{}") }
    );
    const { ws, query, summaryOfTurn1, log } = await setUp(llm);
    await using _ = ws;
    assert.equal((await query(["second question"])).code, 0);
    const pid = await workerPid(log);
    await eventually(
      "the worker asked the model",
      () =>
        Promise.resolve(llm.chatRequests.filter(isSummaryRequest).length >= 1),
    );
    Deno.kill(pid, "SIGKILL");
    const check = await runJpt(["check"], { cwd: ws.root, env: ws.env });
    assert.equal(check.code, 0, check.stdout);
    assert.equal(await summaryOfTurn1(), undefined);
    llm.respond(summaryResponderOrChat());
    assert.equal((await query(["third question"])).code, 0);
    await eventually(
      "the next query summarized turn 1",
      async () => (await summaryOfTurn1()) !== undefined,
    );
  },
});

function summaryResponderOrChat() {
  return (request: RecordedRequest) =>
    request.body?.stream
      ? { stream: { pieces: ["Reply."] } }
      : summaryResponder()(request);
}

/**
 * A `/proc/<pid>/` file of another process, read through `cat`: Deno asks for
 * `--allow-all` to read those directly, and the suite runs with less.
 */
async function procFile(pid: number, name: string): Promise<string> {
  const output = await new Deno.Command("cat", {
    args: [`/proc/${pid}/${name}`],
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(output.stdout);
}

Deno.test({
  name: "no API key on the worker's command line",
  ignore: !LINUX,
  async fn() {
    const key = "sk-never-on-a-command-line-0123456789";
    // Read while the worker waits for its summary answer: it is alive then.
    let logPath = "";
    let seen: { pid: number; cmdline: string; environ: string } | undefined;
    await using llm = FakeLlm.start(async (request) => {
      if (request.body?.stream) return { stream: { pieces: ["Reply."] } };
      if (!isSummaryRequest(request)) return { json: chatCompletion("{}") };
      const text = await Deno.readTextFile(logPath).catch(() => "");
      const pid = Number(/\[(\d+)\] started/.exec(text)?.[1] ?? 0);
      if (pid > 0 && seen === undefined) {
        seen = {
          pid,
          cmdline: await procFile(pid, "cmdline"),
          environ: await procFile(pid, "environ"),
        };
        await new Promise((resolve) => setTimeout(resolve, 500));
      } else if (pid === 0) {
        // The query's own request: slower than the turn, so it is handed off.
        await new Promise((resolve) => setTimeout(resolve, 3_000));
      }
      return summaryResponder()(request);
    });
    const { ws, query, log } = await setUp(llm, {
      OPENAI_API_KEY: key,
      OPENAI_BASE_URL: "http://127.0.0.1:8",
    });
    logPath = log;
    await using _ = ws;
    await Deno.writeTextFile(
      join(ws.root, ".jp", "jpt.toml"),
      `[conversation.turn_summary.generate.model]\nid = "ollama/tiny"\n`,
    );
    assert.equal((await query(["second question"])).code, 0);
    await eventually(
      "the worker asked for its summary",
      () => Promise.resolve(seen !== undefined),
    );
    assert.ok(seen!.cmdline.includes("worker"), seen!.cmdline);
    assert.ok(!seen!.cmdline.includes(key));
    assert.ok(
      seen!.environ.includes(key),
      "the key reaches it through the environment",
    );
    await eventually(
      "the worker finished",
      async () =>
        /finished|wrote|summarized/.test(
          await Deno.readTextFile(log).catch(() => ""),
        ),
    );
  },
});

Deno.test("the query's --cfg reaches its worker through the environment", async () => {
  await using llm = server(0);
  const { ws, env, summaryOfTurn1 } = await setUp(llm);
  await using _ = ws;
  // From now on only the command line knows where the model is.
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "http://127.0.0.1:9"\n[conversation.title.generate]\nauto = false\n`,
  );
  const second = await runJpt([
    "--cfg",
    `providers.llm.ollama.base_url=${llm.url}`,
    "query",
    "second question",
  ], { cwd: ws.root, env });
  assert.equal(second.code, 0, second.stderr);
  await eventually(
    "the worker reached the model named by --cfg",
    async () => (await summaryOfTurn1()) !== undefined,
  );
});
