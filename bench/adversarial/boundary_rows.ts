/**
 * Rows at the edges of the file system and of other programs: a FIFO where
 * jpt writes (the usage ledger, the worker log), a 2 GiB sparse metadata
 * file under `check`, `plugin install` over a link or a directory, a
 * committed directory link out of the workspace, jp's host closing both
 * pipes mid-run, summarizers on the same conversation at once, and the
 * label store's bound on the worker's path.
 *
 * @module
 */

import { join } from "node:path";
import {
  FakeLlm,
  requestedTurnIds,
  summaryResponder,
} from "../../tests/support/fake_llm.ts";
import {
  contentOf,
  judge,
  manyConversations,
  pause,
  removeTrial,
  runJpt,
  sampleWorkspace,
  type Study,
} from "./harness.ts";

/** Makes a FIFO (`mkfifo`). */
async function mkfifo(path: string): Promise<void> {
  const made = await new Deno.Command("mkfifo", { args: [path] }).output();
  if (!made.success) throw new Error(`mkfifo ${path} failed`);
}

/** A model that answers each summary request after `ms`. */
function slowModel(ms: number): FakeLlm {
  const answer = summaryResponder();
  return FakeLlm.start(async (request) => {
    await pause(ms);
    return answer(request);
  });
}

/** A FIFO as this month's usage ledger or as the worker log: no hang. */
export async function fifos(study: Study): Promise<void> {
  await using server = FakeLlm.start(summaryResponder());
  const base = ["--cfg", `providers.llm.ollama.base_url=${server.url}`];
  const month = new Date().toISOString().slice(0, 7);
  const cases: Array<[string, string[], string]> = [
    ["the usage ledger", ["summarize"], join("usage", `${month}.jsonl`)],
    ["the worker log", [
      "worker",
      "--id",
      "17800000000",
      "--max-turns",
      "3",
    ], "worker.log"],
  ];
  for (const [name, args, file] of cases) {
    const { root } = await sampleWorkspace();
    const path = join(root, ".jpt-data", file);
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await mkfifo(path);
    const run = await runJpt(study, [...base, ...args], root);
    study.tallies.record(
      "a FIFO where jpt writes",
      judge(run),
      `${name} (${args[0]}): exit ${run.code}`,
    );
    await removeTrial(root);
  }
}

/**
 * `check` of a conversation whose `metadata.json` or `base_config.json` is
 * a 2 GiB sparse file: refused at once (more than 5 s counts as a hang).
 */
export async function hugeSideFiles(study: Study): Promise<void> {
  for (const name of ["metadata.json", "base_config.json"]) {
    const { root, dir } = await sampleWorkspace();
    const file = await Deno.open(join(dir, name), {
      write: true,
      truncate: true,
    });
    await file.truncate(2 * 1024 ** 3);
    file.close();
    const run = await runJpt(study, ["check", dir], root, {}, 5_000);
    study.tallies.record(
      "check of a 2 GiB sparse side file",
      judge(run),
      `${name}: exit ${run.code} after ${Math.round(run.ms)} ms`,
    );
    await removeTrial(root);
  }
}

/**
 * `plugin install` where `jp-turns` is a link to the user's file (with and
 * without `--force`) or a directory: the user's file is never rewritten,
 * the directory is one clear error (an `os error` line counts as a crash).
 */
export async function pluginInstallLinks(study: Study): Promise<void> {
  for (const variant of ["link", "link --force", "directory"]) {
    const root = await Deno.makeTempDir({ prefix: "jpt-adversarial-" });
    const plugins = join(root, "plugins");
    await Deno.mkdir(plugins);
    const mine = join(root, "notes.txt");
    await Deno.writeTextFile(mine, "my own file\n");
    if (variant === "directory") {
      await Deno.mkdir(join(plugins, "jp-turns"));
    } else await Deno.symlink(mine, join(plugins, "jp-turns"));
    const force = variant.endsWith("--force") ? ["--force"] : [];
    const run = await runJpt(
      study,
      ["plugin", "install", "--dir", plugins, ...force],
      root,
    );
    const rewritten = await Deno.readTextFile(mine) !== "my own file\n" ||
      (Deno.statSync(mine).mode! & 0o111) !== 0;
    study.tallies.record(
      "plugin install over a link or a directory",
      rewritten ? "lost" : /os error/.test(run.stderr) ? "crash" : judge(run),
      `${variant}: ${run.stderr.slice(0, 160)}`,
    );
    await removeTrial(root);
  }
}

/**
 * `.jp/conversations` committed as a link to another tree: `summarize
 * --all` leaves the other tree alone.
 */
export async function directoryLinkOut(study: Study): Promise<void> {
  await using server = FakeLlm.start(summaryResponder());
  const ws = await manyConversations(2);
  const outside = await Deno.makeTempDir({ prefix: "jpt-adversarial-out-" });
  await Deno.remove(outside);
  await Deno.rename(join(ws.root, ".jp", "conversations"), outside);
  await Deno.symlink(outside, join(ws.root, ".jp", "conversations"));
  const dirs = [...Deno.readDirSync(outside)].map((e) => join(outside, e.name));
  const before = await Promise.all(
    dirs.map((dir) => Deno.readTextFile(join(dir, "events.json"))),
  );
  const run = await runJpt(study, [
    "--cfg",
    `providers.llm.ollama.base_url=${server.url}`,
    "summarize",
    "--all",
  ], ws.root);
  const after = await Promise.all(
    dirs.map((dir) => Deno.readTextFile(join(dir, "events.json"))),
  );
  const changed = after.some((text, i) => text !== before[i]);
  study.tallies.record(
    "a directory link out of the workspace",
    changed ? "lost" : judge(run),
    `summarize --all wrote through .jp/conversations → outside`,
  );
  await removeTrial(ws.root);
  await removeTrial(outside);
}

/**
 * jp's host closes both pipes while `jp summarize` waits for a model: the
 * plugin ends (exit 130) with no stack.
 */
export async function hostGoesAway(study: Study): Promise<void> {
  await using server = slowModel(1000);
  const ws = await manyConversations(3);
  const plugins = join(ws.root, "plugins");
  const install = await runJpt(study, [
    "plugin",
    "install",
    "--dir",
    plugins,
  ], ws.root);
  if (install.code !== 0) {
    study.tallies.record(
      "jp's host closes both pipes",
      "crash",
      install.stderr,
    );
    return;
  }
  const child = new Deno.Command(join(plugins, "jp-summarize"), {
    cwd: ws.root,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? "",
      JPT_DATA_DIR: join(ws.root, ".jpt-data"),
      JP_GLOBAL_CONFIG_DIR: join(ws.root, ".no-global"),
      JPT_CONFIG_DIR: join(ws.root, ".jpt-config"),
    },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const writer = child.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode(
      JSON.stringify({
        type: "init",
        version: 1,
        workspace: { root: ws.root, storage: join(ws.root, ".jp"), id: "x" },
        paths: { user_data: join(ws.root, ".no-user-data") },
        config: {
          assistant: { model: { id: "ollama/slow" } },
          providers: { llm: { ollama: { base_url: server.url } } },
        },
        args: ["17800001000", "17800001001", "17800001002"],
        log_level: 0,
      }) + "\n",
    ),
  );
  const deadline = performance.now() + 15_000;
  while (server.chatRequests.length === 0 && performance.now() < deadline) {
    await pause(10);
  }
  await child.stdout.cancel();
  await writer.close().catch(() => {});
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  const status = await child.status;
  clearTimeout(timer);
  const errors = await stderr;
  study.tallies.record(
    "jp's host closes both pipes",
    status.signal === "SIGKILL"
      ? "hang"
      : /Uncaught|BrokenPipe|\bat \S+:\d+/.test(errors) || status.code !== 130
      ? "crash"
      : "ok",
    `exit ${status.code}: ${errors.slice(0, 160)}`,
  );
  await removeTrial(ws.root);
}

/**
 * Two `summarize --all` and a `watch --once` at once on 40 conversations
 * of 3 turns: every turn asked for once (a turn asked twice counts as
 * lost: paid twice).
 */
export async function summarizersAtOnce(study: Study): Promise<void> {
  await using server = slowModel(40);
  const ws = await manyConversations(40);
  await Deno.writeTextFile(
    join(ws.root, ".jp", "config.toml"),
    `[assistant.model]\nid = "ollama/slow"\n[providers.llm.ollama]\nbase_url = "${server.url}"\n`,
  );
  const runs = await Promise.all(
    [["summarize", "--all"], ["summarize", "--all"], ["watch", "--once"]].map(
      (args) => runJpt(study, args, ws.root),
    ),
  );
  const asked = new Map<string, number>();
  for (const request of server.chatRequests) {
    for (const id of requestedTurnIds(request)) {
      asked.set(id, (asked.get(id) ?? 0) + 1);
    }
  }
  const twice = [...asked.values()].filter((n) => n > 1).length;
  const bad = runs.map(judge).find((outcome) => outcome !== "ok");
  study.tallies.record(
    "summarizers on the same turns at once",
    twice > 0 ? "lost" : bad ?? "ok",
    `${server.chatRequests.length} requests for 40 conversations, ${twice} turns asked more than once`,
  );
  const lost = (await Promise.all(ws.dirs.map(contentOf))).some((c) =>
    c === undefined
  );
  if (lost) {
    study.tallies.record(
      "summarizers on the same turns at once",
      "lost",
      "a file left invalid",
    );
  }
  await removeTrial(ws.root);
}

/**
 * Workers for 10 conversations with `JPT_LABEL_STORE_MAX=5`: the store
 * keeps at most 5 records.
 */
export async function storeBoundOnWorkers(study: Study): Promise<void> {
  await using server = FakeLlm.start(summaryResponder());
  const ws = await manyConversations(10);
  const env = { JPT_LABEL_STORE_MAX: "5" };
  let bad: string | undefined;
  for (let c = 0; c < 10; c++) {
    const run = await runJpt(
      study,
      [
        "--cfg",
        `providers.llm.ollama.base_url=${server.url}`,
        "worker",
        "--id",
        `1780000${1000 + c}`,
        "--max-turns",
        "3",
      ],
      ws.root,
      env,
    );
    if (judge(run) !== "ok") bad = run.stderr.slice(0, 160);
  }
  let records = 0;
  for (const store of ["labels-v2", "labels"]) {
    try {
      for (const item of Deno.readDirSync(join(ws.root, ".jpt-data", store))) {
        if (/^[0-9a-f]{64}\.json$/.test(item.name)) records++;
      }
    } catch {
      // Not this layout.
    }
  }
  study.tallies.record(
    "the label store's bound on the worker's path",
    records > 5 ? "lost" : bad === undefined ? "ok" : "crash",
    `${records} records with a bound of 5${bad ? `: ${bad}` : ""}`,
  );
  await removeTrial(ws.root);
}
