/**
 * `jpt turns` on a conversation of 20,000 small unlabelled turns (a short
 * request and a short reply each, ~430 bytes a turn, as chat-only
 * conversations are) against a script that `JSON.parse`s the file, each in
 * a fresh process, alternated run by run; with `--before DIR`, another
 * checkout's `main.ts` beside this one. Medians of 11 rounds (3 with
 * `--quick`). Beside them, the row's floor: jpt's start-up (`jpt turns` on
 * a one-turn conversation, less a Deno hello world) plus the parse.
 *
 * `deno run -A bench/turns_small_run.ts [--before DIR] [--quick]` prints the row.
 *
 * @module
 */

import { join } from "node:path";
import {
  beforeMain,
  floorContenders,
  floorText,
  MAIN,
  removeTree,
  sideBySide,
  timedDeno,
} from "./run_jpt.ts";
import { writeConversation } from "../tests/support/workspace.ts";

const quick = Deno.args.includes("--quick");
const before = beforeMain();
const ROUNDS = quick ? 3 : 11;
const TURNS = 20_000;

/** A chat-only conversation's events: ~430 bytes a turn. */
export function smallTurns(turns: number): string {
  const entries: Array<Record<string, unknown>> = [];
  const words =
    "the build cache misses on CI because the key hashes the lock file".split(
      " ",
    );
  const sentence = (n: number, length: number) =>
    Array.from({ length }, (_, i) => words[(n + i * 7) % words.length]).join(
      " ",
    );
  for (let i = 0; i < turns; i++) {
    const second = String(i % 60).padStart(2, "0");
    const stamp = `2026-01-01 00:00:${second}.${i % 10}`;
    entries.push({ type: "turn_start", timestamp: stamp });
    entries.push({
      type: "chat_request",
      timestamp: stamp,
      content: `${sentence(i, 12)}? (${i})`,
    });
    entries.push({
      type: "chat_response",
      timestamp: stamp,
      message: `${sentence(i + 3, 18)}.`,
    });
  }
  return JSON.stringify(entries, null, 2) + "\n";
}

if (import.meta.main) {
  const root = await Deno.makeTempDir({ prefix: "jpt-bench-turns-" });
  try {
    const text = smallTurns(TURNS);
    const dir = await writeConversation(
      join(root, ".jp", "conversations"),
      "17800000000",
      new TextEncoder().encode(text),
    );
    await Deno.writeTextFile(join(dir, "base_config.json"), "{}\n");
    await Deno.writeTextFile(join(root, ".jp", ".id"), "x\nbenchtu\n");
    const script = join(root, "parse.ts");
    await Deno.writeTextFile(
      script,
      `console.log(JSON.parse(Deno.readTextFileSync(Deno.args[0])).length);\n`,
    );
    const small = join(root, "one-turn");
    const one = await writeConversation(
      join(small, ".jp", "conversations"),
      "17800000000",
      new TextEncoder().encode(smallTurns(1)),
    );
    await Deno.writeTextFile(join(one, "base_config.json"), "{}\n");
    await Deno.writeTextFile(join(small, ".jp", ".id"), "x\nbenchto\n");
    const contenders: Record<string, () => Promise<number>> = {
      parse: () => timedDeno([script, join(dir, "events.json")], root),
      after: () => timedDeno([MAIN, "turns", "17800000000"], root),
      ...await floorContenders(
        root,
        () => timedDeno([MAIN, "turns", "17800000000"], small),
      ),
      ...(before === undefined
        ? {}
        : { before: () => timedDeno([before, "turns", "17800000000"], root) }),
    };
    const measured = await sideBySide(contenders, ROUNDS);
    const m = measured.median;
    const spread = (name: string) => measured.ratio(name, "parse");
    console.log(
      `| \`jpt turns\`, ${TURNS.toLocaleString("en")} small unlabelled turns (${
        (text.length / 1e6).toFixed(1)
      } MB) / JSON.parse (${m.parse!.toFixed(0)} ms) | ${
        before === undefined ? "–" : `${spread("before")}`
      } | ${spread("after")} | ≤ 1.5× (${floorText(m, "parse", "parse")}) |`,
    );
  } finally {
    await removeTree(root);
  }
}
