/**
 * The adversarial study, rerunnable: `deno task adversarial` drives the real
 * CLI through hostile situations (the rows of `bench/adversarial/`) and
 * classifies every run as ok, a clear error (exit 1 or 2 with one `error:`
 * line), a crash (a bug: any other exit code, a stack, or the `--verbose`
 * hint), lost (a file changed by a command that must not change it, a file
 * left invalid, a write lost, a request paid twice, or a secret printed or
 * sent) or a hang (no exit within 20 s). Kill trials also count how many
 * kills landed inside the phase their row names. Writes
 * `bench/ADVERSARIAL.md`'s table. Everything talks only to loopback servers
 * it starts itself, and every user directory is inside each trial's folder.
 *
 * - `--quick`: a short run (prints, writes nothing; `deno task
 *   adversarial-quick`, run by CI).
 * - `--entry PATH`: run another checkout's `main.ts` (to show a row fails on
 *   a commit that has the defect); prints, writes nothing.
 * - `--rows a,b`: only the rows whose names start with these words.
 *
 * Exits 1 when a run ended badly or (except with `--quick`) a kill missed
 * its phase.
 *
 * @module
 */

import {
  concurrency,
  corruptInput,
  deepConfig,
  hostileModel,
  notAStream,
  secrets,
} from "./adversarial/input_rows.ts";
import {
  killBackfill,
  killBatchApply,
  killWhileWriting,
  killWorker,
} from "./adversarial/kill_rows.ts";
import { trustProbes } from "./adversarial/trust_rows.ts";
import {
  directoryLinkOut,
  fifos,
  hostGoesAway,
  hugeSideFiles,
  pluginInstallLinks,
  storeBoundOnWorkers,
  summarizersAtOnce,
} from "./adversarial/boundary_rows.ts";
import { HANG_MS, type Study, Tallies } from "./adversarial/harness.ts";
import { optionValue } from "./run_jpt.ts";

const quick = Deno.args.includes("--quick");
const entry = optionValue("--entry") ??
  new URL("../main.ts", import.meta.url).pathname;
const only = optionValue("--rows")?.split(",");
const study: Study = { entry, quick, tallies: new Tallies() };

/** Every row: its name and how to run it (full run, quick run). */
const ROWS: Array<[string, () => Promise<void>]> = [
  ["corrupt", () => corruptInput(study, quick ? 30 : 300)],
  ["kill-write", () => killWhileWriting(study, quick ? 4 : 30)],
  ["concurrent", () => concurrency(study, quick ? 2 : 10)],
  ["hostile", () => hostileModel(study, quick ? 1 : 2)],
  ["not-a-stream", () => notAStream(study)],
  ["secrets", () => secrets(study, quick ? 1 : 2)],
  ["deep-config", () => deepConfig(study)],
  ["kill-backfill", () => killBackfill(study, quick ? 4 : 100)],
  ["kill-worker", () => killWorker(study, quick ? 4 : 100)],
  ["kill-batch", () => killBatchApply(study, quick ? 4 : 100)],
  ["trust", () => trustProbes(study, quick ? 1 : 5)],
  ["fifo", () => fifos(study)],
  ["huge-side-files", () => hugeSideFiles(study)],
  ["plugin-install", () => pluginInstallLinks(study)],
  ["link-out", () => directoryLinkOut(study)],
  ["host-gone", () => hostGoesAway(study)],
  ["summarizers", () => summarizersAtOnce(study)],
  ["store-bound", () => storeBoundOnWorkers(study)],
];

const started = performance.now();
for (const [name, run] of ROWS) {
  if (only !== undefined && !only.some((word) => name.startsWith(word))) {
    continue;
  }
  await run();
}
const seconds = Math.round((performance.now() - started) / 1000);

const rows = study.tallies.entries().map(([category, t]) =>
  `| ${category} | ${t.tried} | ${
    t.kills ? t.landed : "–"
  } | ${t.counts.ok} | ${
    t.counts["clear error"]
  } | ${t.counts.crash} | ${t.counts.lost} | ${t.counts.hang} |`
);
const examples = study.tallies.entries().flatMap(([category, t]) =>
  t.examples.map((example) => `- ${category}: ${example}`)
);
const table =
  `| row | tried | kills landed in phase | ok | clear error | crash | lost | hang |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join("\n")}
${study.tallies.notes.map((note) => `\n${note}`).join("")}${
    examples.length > 0
      ? `\n\nFirst examples of each bad outcome:\n\n${examples.join("\n")}\n`
      : "\n"
  }`;
const report = `# Adversarial runs

\`deno task adversarial\` on ${
  new Date().toISOString().slice(0, 10)
}, ${seconds} s. Each run is one
jpt command against a temporary workspace and, where a model is involved, a
loopback server of the harness. "ok" and "clear error" are the acceptable
outcomes; "crash" is a bug report (stack, \`--verbose\` hint, unexpected
exit), "lost" a changed or invalid file, a lost write, a request paid twice
or a printed or sent secret, "hang" no exit within ${HANG_MS / 1000} s.

${table}`;
console.log(report);
const fullHere = !quick && optionValue("--entry") === undefined &&
  only === undefined;
if (fullHere) {
  const path = new URL("./ADVERSARIAL.md", import.meta.url);
  const kept = (await Deno.readTextFile(path)).split(
    "\n## Each row on a commit that has its defect",
  )[1];
  await Deno.writeTextFile(
    path,
    kept === undefined
      ? report
      : `${report}\n## Each row on a commit that has its defect${kept}`,
  );
  // Committed as `deno fmt` lays it out, so CI's format check stays green.
  await new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--quiet", path.pathname],
  }).output();
}
// A short run (CI's) fails on bad outcomes only: on a loaded machine a
// process may finish inside the few milliseconds a kill waits.
if (study.tallies.failed(!quick)) Deno.exit(1);
