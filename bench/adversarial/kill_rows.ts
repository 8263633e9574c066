/**
 * kill -9 inside the phase a row names: the harness watches the process's
 * own progress (the conversations it has begun to write, the batch output
 * it has downloaded) and kills it a random moment after the phase began. A
 * trial whose process had already exited did not land and is counted as
 * such. Every conversation is judged afterwards: "lost" when a file is torn
 * or invalid, or an entry other than a turn_start changed or went missing.
 *
 * @module
 */

import { join } from "node:path";
import { FakeLlm, summaryResponder } from "../../tests/support/fake_llm.ts";
import { FakeBatchApi } from "../../tests/support/fake_batch_api.ts";
import {
  contentOf,
  HANG_MS,
  manyConversations,
  pause,
  random,
  removeTrial,
  runJpt,
  sampleWorkspace,
  spawnJpt,
  type Study,
  summariesOf,
} from "./harness.ts";

/** One kill trial. */
interface KillTrial {
  /** The row. */
  row: string;
  /** What the example names. */
  label: string;
  /** jpt's arguments. */
  args: string[];
  /** The trial's folder and its conversations. */
  workspace: { root: string; dirs: string[] };
  /** More variables. */
  env?: Record<string, string>;
  /** Whether the process is inside the phase now (polled every 1 ms). */
  inPhase: () => boolean;
  /** How long after the phase began to kill (ms). */
  delayMs: number;
  /** A further look after the kill: whether something was lost. */
  lostAfter?: () => Promise<boolean>;
}

/**
 * Runs one trial: kills the process `delayMs` after it entered its phase.
 *
 * @param study The study.
 * @param trial The trial.
 * @returns Whether some conversations were summarized and others not (a
 *   partly applied run).
 */
async function killInPhase(study: Study, trial: KillTrial): Promise<boolean> {
  const { dirs, root } = trial.workspace;
  const before = await Promise.all(dirs.map(contentOf));
  const child = spawnJpt(study, trial.args, root, trial.env);
  let exited = false;
  const output = child.output().finally(() => exited = true);
  const deadline = performance.now() + HANG_MS;
  while (!exited && !trial.inPhase() && performance.now() < deadline) {
    await pause(1);
  }
  const entered = trial.inPhase();
  if (entered) await pause(trial.delayMs);
  const killedInPhase = entered && !exited;
  try {
    child.kill("SIGKILL");
  } catch {
    // Already gone.
  }
  const status = await output;
  const landed = killedInPhase && status.signal === "SIGKILL";
  const after = await Promise.all(dirs.map(contentOf));
  const lost = after.some((content, i) =>
    content === undefined ||
    JSON.stringify(content) !== JSON.stringify(before[i])
  ) || (await trial.lostAfter?.() ?? false);
  const labelled = await Promise.all(
    dirs.map(async (dir) =>
      (await summariesOf(dir).catch(() => [])).some((s) => s !== undefined)
    ),
  );
  study.tallies.record(
    trial.row,
    lost ? "lost" : "ok",
    `${trial.label}: ${landed ? "killed in its phase" : "not in its phase"}`,
    landed,
  );
  return labelled.includes(true) && labelled.includes(false);
}

/** A model server whose answers take a random 0–`ms` ms. */
function jitteryModel(seed: number, ms: number): FakeLlm {
  const next = random(seed);
  return FakeLlm.start(async (request) => {
    await pause(next() * ms);
    return summaryResponder()(request);
  });
}

/**
 * How many conversations the process has begun to write: a temporary file
 * beside `events.json`, or `events.json` of another size than when this was
 * called (the process's own progress, read from the file system).
 */
function writesBegun(dirs: string[]): () => number {
  const sizeOf = (dir: string) => Deno.statSync(join(dir, "events.json")).size;
  const sizes = dirs.map(sizeOf);
  const begun = new Set<number>();
  return () => {
    dirs.forEach((dir, i) => {
      if (begun.has(i)) return;
      try {
        if (
          sizeOf(dir) !== sizes[i] ||
          [...Deno.readDirSync(dir)].some((e) => e.name.endsWith(".tmp"))
        ) begun.add(i);
      } catch {
        // Renamed or removed meanwhile: looked at again next time.
      }
    });
    return begun.size;
  };
}

/**
 * kill -9 of `summarize --batch-size 1` on one conversation once it began
 * writing its answers, then `jpt check` of it.
 */
export async function killWhileWriting(
  study: Study,
  count: number,
): Promise<void> {
  const next = random(230);
  await using server = jitteryModel(231, 40);
  for (let i = 0; i < count; i++) {
    const { root, dir } = await sampleWorkspace();
    const begun = writesBegun([dir]);
    await killInPhase(study, {
      row: "kill -9 while summarize writes its answers",
      label: `trial ${i}`,
      args: [
        "--cfg",
        `providers.llm.ollama.base_url=${server.url}`,
        "summarize",
        "--batch-size",
        "1",
      ],
      workspace: { root, dirs: [dir] },
      inPhase: () => begun() > 0,
      delayMs: Math.floor(next() * 3),
      lostAfter: async () =>
        (await runJpt(study, ["check", dir], root)).code !== 0,
    });
    await removeTrial(root);
  }
}

/**
 * kill -9 of `summarize --all --jobs 8` over 12 conversations as it begins
 * writing the k-th (some conversations written, others not).
 */
export async function killBackfill(study: Study, count: number): Promise<void> {
  const next = random(808);
  await using server = jitteryModel(809, 60);
  let partly = 0;
  for (let i = 0; i < count; i++) {
    const ws = await manyConversations(12);
    const k = 1 + Math.floor(next() * 10);
    const begun = writesBegun(ws.dirs);
    if (
      await killInPhase(study, {
        row: "kill -9 during summarize --all --jobs 8",
        label: `trial ${i} as it writes conversation ${k} of 12`,
        args: [
          "--cfg",
          `providers.llm.ollama.base_url=${server.url}`,
          "summarize",
          "--all",
          "--jobs",
          "8",
          "--batch-size",
          "1",
        ],
        workspace: ws,
        inPhase: () => begun() >= k,
        delayMs: Math.floor(next() * 3),
      })
    ) partly++;
    await removeTrial(ws.root);
  }
  study.tallies.notes.push(
    `kill -9 during summarize --all --jobs 8: ${partly} of ${count} kills left the backfill partly applied (some conversations summarized, others not).`,
  );
}

/** kill -9 of a detached worker once it began writing its answers. */
export async function killWorker(study: Study, count: number): Promise<void> {
  const next = random(909);
  await using server = jitteryModel(910, 30);
  for (let i = 0; i < count; i++) {
    // Large enough that its save lasts a moment: the kill lands in it.
    const ws = await manyConversations(1, 20000);
    const begun = writesBegun(ws.dirs);
    await killInPhase(study, {
      row: "kill -9 during the worker's write",
      label: `trial ${i}`,
      args: [
        "--cfg",
        `providers.llm.ollama.base_url=${server.url}`,
        "worker",
        "--id",
        "17800001000",
        "--max-turns",
        "3",
      ],
      workspace: ws,
      inPhase: () => begun() > 0,
      delayMs: Math.floor(next() * 3),
    });
    await removeTrial(ws.root);
  }
}

/**
 * kill -9 of `summarize --batch-api --resume` after it downloaded the
 * batch's output and wrote its first conversation (while it applies the
 * rest of the 24).
 */
export async function killBatchApply(
  study: Study,
  count: number,
): Promise<void> {
  const next = random(1010);
  await using api = new FakeBatchApi();
  let partly = 0;
  for (let i = 0; i < count; i++) {
    const ws = await manyConversations(24);
    await Deno.writeTextFile(
      join(ws.root, ".jp", "config.toml"),
      `[assistant.model]\nid = "openai/gpt-test"\ncontext_window = 8192\n`,
    );
    const env = {
      OPENAI_API_KEY: "sk-adversarial",
      OPENAI_BASE_URL: api.baseUrl,
      JPT_BATCH_POLL_SECS: "0.02",
    };
    const submit = await runJpt(
      study,
      ["summarize", "--all", "--batch-api", "--no-wait"],
      ws.root,
      env,
    );
    if (submit.code !== 0) {
      study.tallies.record(
        "kill -9 during --batch-api apply",
        "crash",
        `submit ${i}: ${submit.stderr.slice(0, 160)}`,
        false,
      );
      continue;
    }
    const at = api.downloads + 1;
    const begun = writesBegun(ws.dirs);
    if (
      await killInPhase(study, {
        row: "kill -9 during --batch-api apply",
        label: `trial ${i}`,
        args: ["summarize", "--batch-api", "--resume"],
        workspace: ws,
        env,
        inPhase: () => api.downloads >= at && begun() > 0,
        delayMs: Math.floor(next() * 3),
      })
    ) partly++;
    await removeTrial(ws.root);
  }
  study.tallies.notes.push(
    `kill -9 during --batch-api apply: ${partly} of ${count} kills left the batch partly applied.`,
  );
}
