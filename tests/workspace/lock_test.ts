import assert from "node:assert/strict";
import { join } from "node:path";
import { ConversationLock, LockHeldError } from "../../src/workspace/lock.ts";
import { canRun } from "../support/can_run.ts";

const hasFlock = canRun("flock", ["--version"]);
if (!hasFlock) {
  console.log(
    "SKIP: util-linux flock not found; the cross-process lock test is skipped",
  );
}

/** Holds an flock on `path` in another process until the returned function is called. */
async function holdWithFlock(path: string): Promise<() => Promise<void>> {
  const child = new Deno.Command("flock", {
    args: ["--exclusive", "--nonblock", path, "sh", "-c", "echo held; read _"],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  assert.equal(new TextDecoder().decode(value).trim(), "held");
  reader.releaseLock();
  return async () => {
    await child.stdin.close();
    await child.stdout.cancel();
    await child.status;
  };
}

Deno.test({
  name:
    "ConversationLock.acquire() fails fast while another process holds the lock",
  ignore: !hasFlock,
  async fn() {
    const dir = await Deno.makeTempDir();
    const path = join(dir, "locks", "jp-c1.lock");
    await Deno.mkdir(join(dir, "locks"));
    await Deno.writeTextFile(
      path,
      '{"pid":4242,"acquired_at":"2026-04-10T17:04:20.531233+00:00"}',
    );
    const release = await holdWithFlock(path);
    try {
      await assert.rejects(ConversationLock.acquire(path), (error) => {
        assert.ok(error instanceof LockHeldError);
        assert.match(
          error.message,
          /locked by another process \(pid 4242, since 2026-04-10T17:04:20.531233\+00:00\)/,
        );
        assert.ok(error.message.includes(path));
        return true;
      });
      assert.equal(await ConversationLock.isHeld(path), true);
    } finally {
      await release();
    }
    assert.equal(await ConversationLock.isHeld(path), false);
    const lock = await ConversationLock.acquire(path);
    await lock.release();
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test("ConversationLock.acquire() takes over a leftover lock file whose lock is free", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "locks", "jp-c2.lock");
    await Deno.mkdir(join(dir, "locks"));
    await Deno.writeTextFile(path, '{"pid":1}');
    const lock = await ConversationLock.acquire(path);
    const info = JSON.parse(await Deno.readTextFile(path));
    assert.equal(info.pid, Deno.pid);
    assert.match(
      info.acquired_at,
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+\+00:00$/,
    );
    assert.ok(
      !(await Deno.readTextFile(path)).endsWith("\n"),
      "compact JSON without a newline, as jp writes it",
    );
    await assert.rejects(
      ConversationLock.acquire(path),
      LockHeldError,
      "a second handle in the same process is refused too",
    );
    await lock.release();
    assert.ok(
      (await Deno.stat(path)).isFile,
      "the lock file is kept on release (deleting it breaks exclusion)",
    );
    const again = await ConversationLock.acquire(path);
    await again.release();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "a lock held by jpt blocks util-linux flock (jp's flock) as well",
  ignore: !hasFlock,
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const path = join(dir, "jp-c3.lock");
      const lock = await ConversationLock.acquire(path);
      const probe = await new Deno.Command("flock", {
        args: ["--exclusive", "--nonblock", path, "true"],
      }).output();
      assert.equal(probe.success, false);
      await lock.release();
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
