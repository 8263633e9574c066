import assert from "node:assert/strict";
import { join } from "node:path";
import {
  appendToRegularFile,
  NotRegularFileError,
} from "../../src/workspace/append_regular.ts";
import { appendUsage, readUsage } from "../../src/workspace/usage_ledger.ts";
import {
  appendLogLine,
  unseenGiveUps,
} from "../../src/workspace/worker_log.ts";
import { canRun } from "../support/can_run.ts";

const HAS_MKFIFO = canRun("mkfifo", ["--version"]);

async function fifo(path: string): Promise<void> {
  const made = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.ok(made.success, "mkfifo");
}

Deno.test("appendToRegularFile creates, appends, and refuses a directory or a link", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "log");
    appendToRegularFile(path, "one\n");
    appendToRegularFile(path, "two\n");
    assert.equal(await Deno.readTextFile(path), "one\ntwo\n");
    await Deno.mkdir(join(dir, "folder"));
    assert.throws(
      () => appendToRegularFile(join(dir, "folder"), "x"),
      NotRegularFileError,
    );
    await Deno.symlink(path, join(dir, "link"));
    assert.throws(
      () => appendToRegularFile(join(dir, "link"), "x"),
      NotRegularFileError,
    );
    assert.equal(await Deno.readTextFile(path), "one\ntwo\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "the usage ledger, the worker log and its read mark never block on a FIFO: refused at once, left alone",
  ignore: !HAS_MKFIFO,
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const env = (name: string) => name === "JPT_DATA_DIR" ? dir : undefined;
      const time = new Date().toISOString();
      await Deno.mkdir(join(dir, "usage"));
      await fifo(join(dir, "usage", `${time.slice(0, 7)}.jsonl`));
      // Would hang until a reader came, were the FIFO opened.
      appendUsage(env, {
        time,
        model: "m/x",
        kind: "label",
        prompt_tokens: 1,
        completion_tokens: 1,
        total_tokens: 2,
      });
      const log = join(dir, "worker.log");
      await fifo(log);
      appendLogLine(log, "a line");
      assert.ok((await Deno.lstat(log)).isFifo, "left alone");
      await Deno.remove(log);
      appendLogLine(log, "[1] failed: no key");
      await fifo(`${log}.seen`);
      assert.deepEqual(await unseenGiveUps(log), ["[1] failed: no key"]);
      assert.equal(
        (await readUsage(env, undefined)).length,
        0,
        "a FIFO month is no record",
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
