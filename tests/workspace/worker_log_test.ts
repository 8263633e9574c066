import assert from "node:assert/strict";
import { join } from "node:path";
import {
  appendLogLine,
  tailLines,
  unseenGiveUps,
} from "../../src/workspace/worker_log.ts";

Deno.test("the worker log rotates at its bound and is read from its tail", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "worker.log");
    for (let i = 0; i < 100; i++) appendLogLine(path, `line ${i}`, 200);
    assert.ok((await Deno.stat(path)).size <= 200 + 10);
    assert.ok((await Deno.stat(`${path}.1`)).isFile, "one old file is kept");
    assert.deepEqual(await tailLines(path, 2), ["line 98", "line 99"]);
    assert.equal(await tailLines(join(dir, "none.log"), 5), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "jpt log refuses a FIFO in place of the log instead of hanging",
  ignore: Deno.build.os === "windows",
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const path = join(dir, "worker.log");
      await new Deno.Command("mkfifo", { args: [path] }).output();
      await assert.rejects(tailLines(path, 5), /not a regular file/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("unseenGiveUps() gives each worker give-up once", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "worker.log");
    appendLogLine(path, "2026-12-01T00:00:00.000Z [1] started for 1");
    appendLogLine(
      path,
      '2026-12-01T00:00:01.000Z [1] failed: No conversation "1"',
    );
    appendLogLine(path, "2026-12-01T00:00:02.000Z [1] done");
    assert.deepEqual(await unseenGiveUps(path), [
      '2026-12-01T00:00:01.000Z [1] failed: No conversation "1"',
    ]);
    assert.deepEqual(await unseenGiveUps(path), [], "shown once");
    appendLogLine(
      path,
      "2026-12-01T00:00:03.000Z [2] jp-c1: still locked; labels kept in the label store for the next catch-up",
    );
    assert.equal((await unseenGiveUps(path)).length, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
