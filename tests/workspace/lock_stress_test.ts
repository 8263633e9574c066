/**
 * Exclusion under contention: several processes using jpt's lock, and a
 * stand-in for released jp (flock, then close and delete the lock file on
 * release), each do slow read-modify-writes of one counter under the lock.
 * Any overlap of two holders loses an increment.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { canRun } from "../support/can_run.ts";
import { REPO_ROOT } from "../support/paths.ts";

const HAS_PYTHON = canRun("python3", ["--version"]);
if (!HAS_PYTHON || Deno.build.os === "windows") {
  console.log(
    "SKIP: python3 (with fcntl) not found; the jp lock stand-in stress test is skipped",
  );
}

const WORKERS = 4;
const ROUNDS = 60;
const JP_ROUNDS = 60;

/** Runs 4 jpt lock workers beside a jp stand-in given `standinArgs`; the counter's final value. */
async function stress(standinArgs: string[]): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "jpt-lock-stress-" });
  try {
    const lock = join(dir, "locks", "jp-c1.lock");
    const counter = join(dir, "counter");
    await Deno.mkdir(join(dir, "locks"));
    await Deno.writeTextFile(counter, "0");
    const worker = join(REPO_ROOT, "tests", "support", "lock_worker.ts");
    const children = [
      ...Array.from(
        { length: WORKERS },
        () =>
          new Deno.Command(Deno.execPath(), {
            args: ["run", "-A", "--quiet", worker, lock, counter, `${ROUNDS}`],
          }).spawn(),
      ),
      new Deno.Command("python3", {
        args: [
          join(REPO_ROOT, "tests", "support", "jp_lock_standin.py"),
          lock,
          counter,
          `${JP_ROUNDS}`,
          ...standinArgs,
        ],
      }).spawn(),
    ];
    for (const child of children) {
      assert.ok((await child.status).success);
    }
    return Number(await Deno.readTextFile(counter));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name:
    "jpt's lock excludes: 4 jpt processes and a jp stand-in that deletes its lock file lose no update",
  ignore: !HAS_PYTHON || Deno.build.os === "windows",
  async fn() {
    assert.equal(await stress([]), WORKERS * ROUNDS + JP_ROUNDS);
  },
});

Deno.test({
  name:
    "jpt's lock excludes a released jp that pauses 30 ms between unlocking and deleting its lock file",
  ignore: !HAS_PYTHON || Deno.build.os === "windows",
  async fn() {
    assert.equal(await stress(["0.03"]), WORKERS * ROUNDS + JP_ROUNDS);
  },
});

Deno.test({
  name:
    "jpt's lock excludes a released jp whose pid it cannot see (another pid namespace) pausing 30 ms before it deletes its lock file",
  ignore: !HAS_PYTHON || Deno.build.os === "windows",
  async fn() {
    // A pid no process here has: the lock's holder looks dead, and is not.
    assert.equal(
      await stress(["0.03", "2147480000"]),
      WORKERS * ROUNDS + JP_ROUNDS,
      "every increment under the lock survives",
    );
  },
});
