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

Deno.test({
  name:
    "jpt's lock excludes: 4 jpt processes and a jp stand-in that deletes its lock file lose no update",
  ignore: !HAS_PYTHON || Deno.build.os === "windows",
  async fn() {
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
              args: [
                "run",
                "-A",
                "--quiet",
                worker,
                lock,
                counter,
                `${ROUNDS}`,
              ],
            }).spawn(),
        ),
        new Deno.Command("python3", {
          args: [
            join(REPO_ROOT, "tests", "support", "jp_lock_standin.py"),
            lock,
            counter,
            `${JP_ROUNDS}`,
          ],
        }).spawn(),
      ];
      for (const child of children) {
        assert.ok((await child.status).success);
      }
      assert.equal(
        Number(await Deno.readTextFile(counter)),
        WORKERS * ROUNDS + JP_ROUNDS,
        "every increment under the lock survives",
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "jpt's lock excludes a released jp that pauses 30 ms between unlocking and deleting its lock file",
  ignore: !HAS_PYTHON || Deno.build.os === "windows",
  async fn() {
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
              args: [
                "run",
                "-A",
                "--quiet",
                worker,
                lock,
                counter,
                `${ROUNDS}`,
              ],
            }).spawn(),
        ),
        new Deno.Command("python3", {
          args: [
            join(REPO_ROOT, "tests", "support", "jp_lock_standin.py"),
            lock,
            counter,
            `${JP_ROUNDS}`,
            "0.03",
          ],
        }).spawn(),
      ];
      for (const child of children) {
        assert.ok((await child.status).success);
      }
      assert.equal(
        Number(await Deno.readTextFile(counter)),
        WORKERS * ROUNDS + JP_ROUNDS,
        "every increment under the lock survives",
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
