/**
 * Performance, round 3 (issue #29), before and after side by side: every
 * row runs the same measurement against an earlier checkout (`--before DIR`,
 * a checkout of the commit before the round) and this one, alternated run
 * by run, medians.
 *
 * Rows: start-up against a Deno hello world; `turns` on an unlabelled
 * 20,000-turn conversation against `JSON.parse` of the file; how soon a
 * query's request and a detached worker's summary request leave at 10
 * turns, against a bare Deno `fetch` of the same body (the worker also
 * with an Ollama that takes 30 ms to tell the model's context window, which
 * jpt remembers for an hour); how much later
 * a query's request leaves with automatic summaries on than off at 10,000
 * unlabelled turns; `summarize --all --jobs 32` over 500 × 3 turns with 300
 * ms requests against the ideal, and CPU per labelled turn; `check` and
 * `conversation ls` over 1,000 conversations against parsing every file;
 * `check` of one 481 MB conversation against `JSON.parse`, time and peak
 * memory;
 * `jpt watch` CPU per jp save at 1,000 turns, its memory and the label
 * store's size; a one-request `summarize` with 80,000 records in the label
 * store against an empty store. The start-up, query and worker rows are
 * also measured on the single-file bundle (`deno bundle`, the stand-in for
 * what `deno compile` embeds in a release binary).
 *
 * Run with `deno run -A bench/round3_run.ts --before DIR` (about 10
 * minutes; writes its section of bench/RESULTS.md; `--quick` prints fewer
 * runs only; `--only startup,turns,start,worker,window,query,backfill,check,large,watch,store`
 * prints those rows only; `--watch-saves N` makes the watch rows save N
 * times, `--after-only` measures only this checkout there).
 *
 * @module
 */

import { join } from "node:path";
import {
  chatCompletion,
  FakeLlm,
  type RecordedRequest,
  summaryResponder,
} from "../tests/support/fake_llm.ts";
import { releasedJpBytes } from "../tests/support/workspace.ts";
import { generateConversation } from "./generate.ts";
import { cpuMs, rssMb } from "./watch_run.ts";
import { writeResultsSection } from "./results_section.ts";
import { MAIN, median, optionValue, removeTree } from "./run_jpt.ts";

/** One row: what, the two figures, and the goal. */
interface Row {
  what: string;
  before: string;
  after: string;
  goal: string;
}

const quick = Deno.args.includes("--quick");
/** `--watch-saves N`: how many saves the watch rows make (default 30). */
const watchSavesGiven = optionValue("--watch-saves");
const watchSaveCount = watchSavesGiven === undefined
  ? undefined
  : Number(watchSavesGiven);
/** `--after-only`: the watch rows measure this checkout only (a long run). */
const afterOnly = Deno.args.includes("--after-only");
/** `--only startup,turns`: those groups of rows, printed and not written. */
const only = optionValue("--only")?.split(",");
const beforeDir = optionValue("--before");
/**
 * The before checkout's `main.ts`, this one's (what `deno task install`
 * and JSR run), and this one bundled into one file (the stand-in for a
 * release binary, made when the run starts; the start-up, query and worker
 * rows only).
 */
const ENTRIES = {
  before: beforeDir === undefined ? MAIN : join(beforeDir, "main.ts"),
  after: MAIN,
  /** Set when the run starts. */
  installed: "",
};
type Side = keyof typeof ENTRIES;
const SIDES: Side[] = ["before", "after"];
const WITH_INSTALLED: Side[] = ["before", "after", "installed"];

/** Runs a command, returns wall ms; throws with stderr when it fails. */
async function timed(
  command: string[],
  options: { cwd?: string; env?: Record<string, string>; strict?: boolean } =
    {},
): Promise<number> {
  const started = performance.now();
  const output = await new Deno.Command(command[0]!, {
    args: command.slice(1),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: { ...Deno.env.toObject(), NO_COLOR: "1", ...options.env },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  const wall = performance.now() - started;
  if (!output.success && (output.code !== 1 || options.strict)) {
    throw new Error(
      `${command.join(" ")}: ${new TextDecoder().decode(output.stderr)}`,
    );
  }
  return wall;
}

const jpt = (side: Side, ...args: string[]) => [
  Deno.execPath(),
  "run",
  "-A",
  "--quiet",
  ENTRIES[side],
  ...args,
];

/** Alternates `count` rounds of each labelled command; medians. */
async function alternate(
  count: number,
  commands: Record<string, () => Promise<number>>,
): Promise<Record<string, number>> {
  const times: Record<string, number[]> = {};
  for (let round = 0; round < count; round++) {
    for (const [name, run] of Object.entries(commands)) {
      (times[name] ??= []).push(await run());
    }
  }
  return Object.fromEntries(
    Object.entries(times).map(([name, values]) => [name, median(values)]),
  );
}

const ratio = (a: number, b: number) => (a / b).toFixed(2);
const signed = (ms: number) =>
  `${ms >= 0 ? "+" : "−"}${Math.abs(ms).toFixed(0)} ms`;

/** A workspace with `.jp/.id`; `config` is `.jp/config.toml`. */
async function workspace(config = ""): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "jpt-bench-r3-" });
  await Deno.mkdir(join(root, ".jp", "conversations"), { recursive: true });
  await Deno.writeTextFile(join(root, ".jp", ".id"), "x\nbenchr3\n");
  if (config) {
    await Deno.writeTextFile(join(root, ".jp", "config.toml"), config);
  }
  return root;
}

async function addConversation(
  root: string,
  id: number,
  events: Uint8Array,
): Promise<string> {
  const dir = join(root, ".jp", "conversations", String(id));
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeFile(join(dir, "events.json"), events);
  await Deno.writeTextFile(join(dir, "base_config.json"), "{}\n");
  await Deno.writeTextFile(
    join(dir, "metadata.json"),
    '{\n  "last_activated_at": "2026-01-01 00:00:00.0"\n}\n',
  );
  return dir;
}

async function startup(): Promise<Row[]> {
  const hello = join(Deno.makeTempDirSync(), "hello.ts");
  Deno.writeTextFileSync(hello, 'console.log("hello");\n');
  const sample = join(
    new URL("..", import.meta.url).pathname,
    "testdata",
    "workspace",
  );
  const commands: Record<string, () => Promise<number>> = {
    // The same flags and the project's config (its import map and lock).
    hello: () =>
      timed([
        Deno.execPath(),
        "run",
        "-A",
        "--quiet",
        "--config",
        new URL("../deno.json", import.meta.url).pathname,
        hello,
      ], { cwd: sample }),
  };
  for (const side of WITH_INSTALLED) {
    for (const args of [["--version"], ["turns"], ["check"]]) {
      commands[`${side} ${args[0]}`] = () =>
        timed(jpt(side, ...args), { cwd: sample });
    }
  }
  const m = await alternate(quick ? 3 : 11, commands);
  const figure = (side: Side, command: string) =>
    `${ratio(m[`${side} ${command}`]!, m.hello!)}× (${
      m[`${side} ${command}`]!.toFixed(0)
    } ms)`;
  return (["after", "installed"] as const).flatMap((side) =>
    ["--version", "turns", "check"].map((command) => ({
      what: `start-up${
        side === "installed" ? " as bundled" : ""
      }: \`jpt ${command}\` / hello world (${m.hello!.toFixed(0)} ms)`,
      before: figure("before", command),
      after: figure(side, command),
      goal: "≤ 2×",
    }))
  );
}

async function turnsUnlabelled(): Promise<Row> {
  const root = await workspace();
  try {
    const dir = await addConversation(
      root,
      17800000000,
      releasedJpBytes(generateConversation(20000, 300, 7, 0)),
    );
    const script = join(root, "parse.ts");
    await Deno.writeTextFile(
      script,
      "console.log(JSON.parse(Deno.readTextFileSync(Deno.args[0])).length);\n",
    );
    const env = { JPT_DATA_DIR: join(root, "data") };
    const m = await alternate(quick ? 2 : 7, {
      parse: () =>
        timed([
          Deno.execPath(),
          "run",
          "-A",
          "--quiet",
          script,
          join(dir, "events.json"),
        ]),
      before: () =>
        timed(jpt("before", "turns", "17800000000"), { cwd: root, env }),
      after: () =>
        timed(jpt("after", "turns", "17800000000"), { cwd: root, env }),
    });
    return {
      what: `\`jpt turns\`, unlabelled 20,000-turn conversation / JSON.parse (${
        m.parse!.toFixed(0)
      } ms)`,
      before: `${ratio(m.before!, m.parse!)}×`,
      after: `${ratio(m.after!, m.parse!)}×`,
      goal: "≤ 1.5×",
    };
  } finally {
    await removeTree(root);
  }
}

/** A workspace whose model is a loopback server, for timing `jpt query`. */
interface QueryRig {
  /** Runs a command; when its first request (streamed unless `streamed` is false) arrived, and its body. */
  arrival(
    command: string[],
    streamed?: boolean,
  ): Promise<{ ms: number; body: unknown }>;
  /** Adds a conversation of the rig's turns; returns its id. */
  add(): Promise<string>;
  /** `jpt query` on a fresh copy of the conversation: when its request arrived, and its body. */
  query(
    side: Side,
    ...options: string[]
  ): Promise<{ ms: number; body: unknown }>;
  /** The server's URL. */
  url: string;
  /** The workspace (removed afterwards). */
  root: string;
}

/**
 * Runs `measure` against a workspace of conversations of `turns` turns and
 * a loopback model that streams "ok"; each arrival is timed from the start
 * of the process to the streamed request's arrival at the server.
 */
async function withQueryRig<T>(
  turns: number,
  measure: (rig: QueryRig) => Promise<T>,
  showWindow?: { tokens: number; delayMs: number },
): Promise<T> {
  await using server = FakeLlm.start((request) =>
    request.path === "/api/show" && showWindow !== undefined
      ? {
        json: { model_info: { "llama.context_length": showWindow.tokens } },
        delayMs: showWindow.delayMs,
      }
      : request.body?.stream
      ? { stream: { pieces: ["ok"] } }
      : { json: chatCompletion("{}") }
  );
  const root = await workspace(
    `[assistant.model]\nid = "ollama/m"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n`,
  );
  const events = releasedJpBytes(generateConversation(turns, 300, 7, 0));
  let next = 17800000000;
  const arrival = async (command: string[], streamed = true) => {
    const before = server.chatRequests.length;
    const started = performance.now();
    await timed(command, {
      cwd: root,
      env: { JPT_DATA_DIR: join(root, "data") },
    });
    const chat = server.chatRequests.slice(before).find((r) =>
      (r.body?.stream === true) === streamed
    );
    return { ms: chat!.receivedAt - started, body: chat!.body };
  };
  const add = async () => {
    const id = String(next++);
    await addConversation(root, Number(id), events);
    return id;
  };
  const query = async (side: Side, ...options: string[]) =>
    await arrival(jpt(side, "query", "--id", await add(), ...options, "hello"));
  try {
    return await measure({ arrival, add, query, url: server.url, root });
  } finally {
    // Detached workers end on their own; let them.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await removeTree(root);
  }
}

/**
 * How soon `jpt query` sends its request at 10 turns, against a bare Deno
 * script that sends the same body to the same server: from the start of the
 * process to the request's arrival.
 */
function queryStart(): Promise<Row[]> {
  return withQueryRig(10, (rig) =>
    againstBareFetch(
      rig,
      "query at 10 turns: request sent",
      true,
      (side) => rig.query(side),
    ));
}

/**
 * How soon the detached worker a query hands its labels to sends its
 * summary request, at 10 unlabelled turns, against the same bare fetch: the
 * worker is started as `jpt query` starts it, from the start of the
 * process to the request's arrival.
 */
function workerStart(
  showWindow?: { tokens: number; delayMs: number },
): Promise<Row[]> {
  return withQueryRig(10, (rig) =>
    againstBareFetch(
      rig,
      showWindow === undefined
        ? "worker at 10 turns: summary request sent"
        : `worker at 10 turns, Ollama answering \`/api/show\` in ${showWindow.delayMs} ms: summary request sent`,
      false,
      async (side) =>
        await rig.arrival(
          jpt(
            side,
            "--workspace",
            rig.root,
            "worker",
            "--id",
            await rig.add(),
            ...[
              "--max-turns",
              "10",
              "--before",
              "10",
            ],
          ),
          false,
        ),
    ), showWindow);
}

/**
 * Times `run` on both sides against a bare Deno script sending the body
 * `run` sent to the rig's server, alternated round by round; medians.
 */
async function againstBareFetch(
  rig: QueryRig,
  what: string,
  streamed: boolean,
  run: (side: Side) => Promise<{ ms: number; body: unknown }>,
): Promise<Row[]> {
  // One run learns the body the bare script sends.
  const { body } = await run("after");
  const bare = await bareFetch(rig.root, rig.url, body);
  const times: Record<string, number[]> = {};
  for (let round = 0; round < (quick ? 2 : 15); round++) {
    (times.bare ??= []).push((await rig.arrival(bare, streamed)).ms);
    for (const side of WITH_INSTALLED) {
      (times[side] ??= []).push((await run(side)).ms);
    }
  }
  const m = (name: string) => median(times[name]!);
  const figure = (side: Side) =>
    `${ratio(m(side), m("bare"))}× (${m(side).toFixed(0)} ms)`;
  return (["after", "installed"] as const).map((side) => ({
    what: `${what}${
      side === "installed" ? ", as bundled" : ""
    } / a bare Deno fetch of the same body (${m("bare").toFixed(0)} ms)`,
    before: figure("before"),
    after: figure(side),
    goal: "≤ 2×",
  }));
}

/** A script that sends `body` to the rig's server with a bare `fetch`. */
async function bareFetch(
  root: string,
  url: string,
  body: unknown,
): Promise<string[]> {
  const script = join(root, "fetch.ts");
  await Deno.writeTextFile(
    script,
    `await (await fetch(${
      JSON.stringify(`${url}/v1/chat/completions`)
    }, { method: "POST", headers: { "content-type": "application/json" }, body: ${
      JSON.stringify(JSON.stringify(body))
    } })).text();\n`,
  );
  return [Deno.execPath(), "run", "-A", "--quiet", script];
}

function queryDelay(): Promise<Row> {
  return withQueryRig(10000, async ({ query }) => {
    const off = ["--cfg", "conversation.turn_summary.generate.auto=false"];
    const result: Record<string, number[]> = {};
    for (let round = 0; round < (quick ? 1 : 3); round++) {
      for (const side of SIDES) {
        (result[`${side} true`] ??= []).push((await query(side)).ms);
        (result[`${side} false`] ??= []).push((await query(side, ...off)).ms);
      }
    }
    const extra = (side: Side) =>
      median(result[`${side} true`]!) - median(result[`${side} false`]!);
    return {
      what:
        "query at 10,000 unlabelled turns: request leaves later with auto summaries on than off",
      before: signed(extra("before")),
      after: signed(extra("after")),
      goal: "≤ +100 ms",
    };
  });
}

async function backfill(): Promise<Row[]> {
  const answer = summaryResponder();
  await using server = FakeLlm.start(async (request: RecordedRequest) => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return answer(request);
  });
  const conversations = quick ? 100 : 500;
  const figures: Record<string, { wall: number; cpu: number }> = {};
  for (const side of SIDES) {
    const root = await workspace(
      `[assistant.model]\nid = "ollama/tiny"\ncontext_window = 100000\n[providers.llm.ollama]\nbase_url = "${server.url}"\n`,
    );
    try {
      for (let c = 0; c < conversations; c++) {
        await addConversation(
          root,
          17800000000 + c,
          generateConversation(3, 300, c + 1, 0),
        );
      }
      const shell = await new Deno.Command("bash", {
        args: [
          "-c",
          `TIMEFORMAT='%R %U %S'; time ${
            jpt(side, "summarize", "--all", "--jobs", "32", "--json").map((a) =>
              `'${a}'`
            ).join(" ")
          } > /dev/null`,
        ],
        cwd: root,
        env: {
          ...Deno.env.toObject(),
          JPT_DATA_DIR: join(root, "data"),
          NO_COLOR: "1",
        },
        stderr: "piped",
      }).output();
      const [wall, user, sys] = new TextDecoder().decode(shell.stderr).trim()
        .split("\n").at(-1)!.split(" ").map(Number);
      figures[side] = { wall: wall! * 1000, cpu: (user! + sys!) * 1000 };
    } finally {
      await removeTree(root);
    }
  }
  const ideal = conversations * 300 / 32;
  const turns = conversations * 3;
  return [
    {
      what:
        `\`summarize --all --jobs 32\`, ${conversations} × 3 turns, 300 ms requests: wall / ideal (${
          (ideal / 1000).toFixed(1)
        } s)`,
      before: `${ratio(figures.before!.wall, ideal)}×`,
      after: `${ratio(figures.after!.wall, ideal)}×`,
      goal: "≤ 1.5×",
    },
    {
      what: "the same: CPU (user + system) per labelled turn",
      before: `${(figures.before!.cpu / turns).toFixed(2)} ms`,
      after: `${(figures.after!.cpu / turns).toFixed(2)} ms`,
      goal: "≤ 2 ms",
    },
  ];
}

async function checkAndList(): Promise<Row[]> {
  const root = await workspace();
  try {
    for (let c = 0; c < 1000; c++) {
      await addConversation(
        root,
        17800000000 + c,
        generateConversation(10, 300, c + 1, 10),
      );
    }
    const conversations = join(root, ".jp", "conversations");
    const script = join(root, "parse.ts");
    await Deno.writeTextFile(
      script,
      `const root = Deno.args[0]; let n = 0;
for (const d of Deno.readDirSync(root)) {
  n += JSON.parse(Deno.readTextFileSync(root + "/" + d.name + "/events.json")).length;
  JSON.parse(Deno.readTextFileSync(root + "/" + d.name + "/metadata.json"));
}
console.log(n);
`,
    );
    const env = { JPT_DATA_DIR: join(root, "data") };
    const m = await alternate(quick ? 2 : 11, {
      parse: () =>
        timed([Deno.execPath(), "run", "-A", "--quiet", script, conversations]),
      "before check": () => timed(jpt("before", "check"), { cwd: root, env }),
      "after check": () => timed(jpt("after", "check"), { cwd: root, env }),
      "before ls": () =>
        timed(jpt("before", "conversation", "ls"), { cwd: root, env }),
      "after ls": () =>
        timed(jpt("after", "conversation", "ls"), { cwd: root, env }),
    });
    return [
      {
        what:
          `\`jpt check\`, 1,000 conversations × 10 turns / parsing every file (${
            m.parse!.toFixed(0)
          } ms)`,
        before: `${ratio(m["before check"]!, m.parse!)}×`,
        after: `${ratio(m["after check"]!, m.parse!)}×`,
        goal: "≤ 4×",
      },
      {
        what: "`jpt conversation ls`, the same workspace / parsing every file",
        before: `${ratio(m["before ls"]!, m.parse!)}×`,
        after: `${ratio(m["after ls"]!, m.parse!)}×`,
        goal: "≤ 2×",
      },
    ];
  } finally {
    await removeTree(root);
  }
}

/** Runs a command; its wall time and peak resident memory (Linux `/proc`). */
async function timedPeak(
  command: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<{ ms: number; peakMb: number }> {
  const started = performance.now();
  const child = new Deno.Command(command[0]!, {
    args: command.slice(1),
    cwd: options.cwd,
    env: { ...Deno.env.toObject(), NO_COLOR: "1", ...options.env },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  let peakKb = 0;
  let done = false;
  const status = child.status.finally(() => done = true);
  while (!done) {
    try {
      const text = Deno.readTextFileSync(`/proc/${child.pid}/status`);
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(text)?.[1] ?? 0));
    } catch {
      // exited meanwhile
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const { success } = await status;
  if (!success) throw new Error(`${command.join(" ")} failed`);
  return { ms: performance.now() - started, peakMb: peakKb / 1024 };
}

/** `check` of one 481 MB conversation: time and memory against `JSON.parse`. */
async function checkLarge(): Promise<Row[]> {
  const root = await workspace();
  try {
    const dir = await addConversation(
      root,
      17800000000,
      generateConversation(quick ? 5000 : 50000),
    );
    const events = join(dir, "events.json");
    const mb = (await Deno.stat(events)).size / 1e6;
    const script = join(root, "parse.ts");
    await Deno.writeTextFile(
      script,
      "console.log(JSON.parse(Deno.readTextFileSync(Deno.args[0])).length);\n",
    );
    const env = { JPT_DATA_DIR: join(root, "data") };
    const runs: Record<string, Array<{ ms: number; peakMb: number }>> = {};
    for (let round = 0; round < 2; round++) {
      for (
        const [name, command] of [
          ["parse", [Deno.execPath(), "run", "-A", "--quiet", script, events]],
          ["before", jpt("before", "check")],
          ["after", jpt("after", "check")],
        ] as const
      ) {
        (runs[name] ??= []).push(
          await timedPeak([...command], { cwd: root, env }),
        );
      }
    }
    const ms = (name: string) => median(runs[name]!.map((run) => run.ms));
    const peak = (name: string) => median(runs[name]!.map((run) => run.peakMb));
    return [
      {
        what: `\`jpt check\`, one ${
          mb.toFixed(0)
        } MB conversation / JSON.parse (${ms("parse").toFixed(0)} ms)`,
        before: `${ratio(ms("before"), ms("parse"))}×`,
        after: `${ratio(ms("after"), ms("parse"))}×`,
        goal: "≤ 2×",
      },
      {
        what: `the same: peak resident memory / file size (JSON.parse: ${
          (peak("parse") / mb).toFixed(2)
        }×)`,
        before: `${(peak("before") / mb).toFixed(2)}× (${
          peak("before").toFixed(0)
        } MB)`,
        after: `${(peak("after") / mb).toFixed(2)}× (${
          peak("after").toFixed(0)
        } MB)`,
        goal: "≤ 2×",
      },
    ];
  } finally {
    await removeTree(root);
  }
}

async function watchSaves(side: Side, saves: number) {
  await using server = FakeLlm.start(summaryResponder());
  const root = await workspace(
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n`,
  );
  const dir = await addConversation(
    root,
    17800000000,
    releasedJpBytes(generateConversation(1000, 300, 3, 0)),
  );
  const env = {
    ...Deno.env.toObject(),
    JP_USER_DATA_DIR: join(root, "user"),
    JPT_DATA_DIR: join(root, "jpt-data"),
    NO_COLOR: "1",
  };
  try {
    await timed(jpt(side, "summarize", "--batch-size", "50"), {
      cwd: root,
      env,
    });
    const watcher = new Deno.Command(jpt(side)[0]!, {
      args: [...jpt(side, "watch").slice(1)],
      cwd: root,
      env,
      stdout: "null",
      stderr: "null",
    }).spawn();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const cpu: number[] = [];
    const rss: number[] = [];
    const events = join(dir, "events.json");
    for (let i = 0; i < saves; i++) {
      const before = cpuMs(watcher.pid);
      // A released jp's save: labels and ids dropped, written atomically.
      const stripped = releasedJpBytes(Deno.readFileSync(events));
      Deno.writeFileSync(join(dir, ".jp-save-in-progress"), stripped);
      Deno.renameSync(join(dir, ".jp-save-in-progress"), events);
      const until = Date.now() + 30_000;
      while (
        Date.now() < until &&
        !Deno.readTextFileSync(events).includes('"summary"')
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      cpu.push(cpuMs(watcher.pid) - before);
      if (i === 0 || i === 9) rss.push(rssMb(watcher.pid));
    }
    rss.push(rssMb(watcher.pid));
    watcher.kill("SIGTERM");
    await watcher.status;
    const du = new TextDecoder().decode(
      new Deno.Command("du", {
        args: ["-sb", join(root, "jpt-data")],
        stdout: "piped",
      }).outputSync().stdout,
    );
    return {
      cpu: median(cpu),
      rss: rss.map((mb) => mb.toFixed(0)).join(" → "),
      storeMb: Number(du.split("\t")[0]) / 1e6,
    };
  } finally {
    await removeTree(root);
  }
}

async function watch(): Promise<Row[]> {
  const saves = watchSaveCount ?? (quick ? 10 : 30);
  const before = afterOnly
    ? { cpu: NaN, rss: "–", storeMb: NaN }
    : await watchSaves("before", saves);
  const after = await watchSaves("after", saves);
  return [
    {
      what:
        `\`jpt watch\`: CPU per released-jp save of a 1,000-turn conversation (median of ${saves})`,
      before: afterOnly ? "–" : `${before.cpu.toFixed(0)} ms`,
      after: `${after.cpu.toFixed(0)} ms`,
      goal: "≤ 50 ms",
    },
    {
      what: `the same: resident memory after save 1 → save 10 → save ${saves}`,
      before: `${before.rss} MB`,
      after: `${after.rss} MB`,
      goal: "flat ± 10 %",
    },
    {
      what: `the same: jpt's data directory (label store) after ${saves} saves`,
      before: afterOnly ? "–" : `${before.storeMb.toFixed(2)} MB`,
      after: `${after.storeMb.toFixed(2)} MB`,
      goal: "< 10 MB",
    },
  ];
}

async function storeOf80k(): Promise<Row> {
  await using server = FakeLlm.start(summaryResponder());
  const root = await workspace(
    `[assistant.model]\nid = "ollama/tiny"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n`,
  );
  try {
    const records = quick ? 20000 : 80000;
    const stores: Record<string, string> = {};
    for (const side of SIDES) {
      stores[`${side} full`] = join(root, `${side}-full`);
      stores[`${side} empty`] = join(root, `${side}-empty`);
      await Deno.mkdir(join(stores[`${side} full`]!, "labels-v2"), {
        recursive: true,
      });
      for (let i = 0; i < records; i++) {
        Deno.writeTextFileSync(
          join(
            stores[`${side} full`]!,
            "labels-v2",
            `${i.toString(16).padStart(64, "0")}.json`,
          ),
          "{}",
        );
      }
    }
    let next = 17800000000;
    const once = (side: Side, store: string) => async () => {
      const dir = await addConversation(
        root,
        next++,
        generateConversation(3, 300, next, 0),
      );
      return await timed(jpt(side, "summarize", dir), {
        cwd: root,
        env: { JPT_DATA_DIR: store },
      });
    };
    const times: Record<string, number[]> = {};
    for (const side of SIDES) await once(side, stores[`${side} full`]!)(); // the first run counts
    for (let round = 0; round < (quick ? 2 : 5); round++) {
      for (const name of Object.keys(stores)) {
        const side = name.split(" ")[0] as Side;
        (times[name] ??= []).push(await once(side, stores[name]!)());
      }
    }
    const m = Object.fromEntries(
      Object.entries(times).map(([k, v]) => [k, median(v)]),
    );
    return {
      what: `one-request \`summarize\` with ${
        records.toLocaleString("en")
      } records in the label store / with an empty store`,
      before: `${ratio(m["before full"]!, m["before empty"]!)}×`,
      after: `${ratio(m["after full"]!, m["after empty"]!)}×`,
      goal: "≤ 1.2×",
    };
  } finally {
    await removeTree(root);
  }
}

/** The section's heading in RESULTS.md. */
export const ROUND3_HEADING = "## Performance, round 3: before and after";

if (import.meta.main) {
  if (beforeDir === undefined) {
    console.error(
      "usage: deno run -A bench/round3_run.ts --before DIR [--quick]",
    );
    Deno.exit(2);
  }
  const started = performance.now();
  const build = await Deno.makeTempDir({ prefix: "jpt-bench-build-" });
  ENTRIES.installed = join(build, "jpt.js");
  const bundled = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=deno",
      "-o",
      ENTRIES.installed,
      "cli.ts",
    ],
  }).output();
  if (!bundled.success) throw new Error("deno bundle failed");
  const groups: Record<string, () => Promise<Row | Row[]>> = {
    startup,
    turns: turnsUnlabelled,
    start: queryStart,
    worker: () => workerStart(),
    window: () => workerStart({ tokens: 8192, delayMs: 30 }),
    query: queryDelay,
    backfill,
    check: checkAndList,
    large: checkLarge,
    watch,
    store: storeOf80k,
  };
  const rows: Row[] = [];
  for (const [name, measure] of Object.entries(groups)) {
    if (only === undefined || only.includes(name)) {
      rows.push(...[await measure()].flat());
    }
  }
  const table = [
    `Before: the commit the round started from (\`--before\`, a checkout of it); after: this one. Each row runs both side by side in one run (alternated where it is a time), medians. ${
      ((performance.now() - started) / 60000).toFixed(1)
    } minutes.`,
    "",
    "| measurement | before | after | goal |",
    "| --- | ---: | ---: | --- |",
    ...rows.map((row) =>
      `| ${row.what} | ${row.before} | ${row.after} | ${row.goal} |`
    ),
  ].join("\n");
  console.log(table);
  await removeTree(build);
  if (!quick && only === undefined) {
    await writeResultsSection(ROUND3_HEADING, table);
  }
}
