import assert from "node:assert/strict";
import { join } from "node:path";
import {
  readListedFileSync,
  readRegularFile,
  readRegularFileSync,
  UnreadableFileError,
} from "../../src/workspace/read_bounded.ts";

Deno.test("readRegularFile() reads small and large files whole, byte for byte", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jpt-read-" });
  try {
    // Around the 1 MiB switch from one blocking read to the buffered one.
    for (const size of [0, 1, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 7]) {
      const bytes = new Uint8Array(size);
      for (let i = 0; i < size; i++) bytes[i] = (i * 31 + 7) & 0xff;
      const path = join(dir, `f${size}`);
      await Deno.writeFile(path, bytes);
      assert.deepEqual(await readRegularFile(path), bytes, `size ${size}`);
      assert.deepEqual(readRegularFileSync(path), bytes, `size ${size}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readRegularFile() refuses a directory and a file over the limit, naming the file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jpt-read-" });
  try {
    await assert.rejects(
      () => readRegularFile(dir),
      (error) =>
        error instanceof UnreadableFileError && error.path === dir &&
        /directory/.test(error.message),
    );
    const path = join(dir, "big");
    await Deno.writeFile(path, new Uint8Array((1 << 20) + 10));
    await assert.rejects(
      () => readRegularFile(path, 1 << 20),
      (error) =>
        error instanceof UnreadableFileError && error.path === path &&
        /over the limit/.test(error.message),
    );
    await assert.rejects(
      () => readRegularFile(join(dir, "missing")),
      Deno.errors.NotFound,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a file replaced after it was looked at is read whole as it is now, never cut at the size the look saw", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jpt-read-" });
  try {
    const path = join(dir, "events.json");
    const first = new TextEncoder().encode('[\n  {"a": 1}\n]\n');
    await Deno.writeFile(path, first);
    const looked = Deno.statSync(path);
    // A writer's rename replaces it with a longer file between the look and the read.
    const second = new TextEncoder().encode(
      '[\n  {"a": 1},\n  {"b": 22222}\n]\n',
    );
    await Deno.writeFile(`${path}.tmp`, second);
    await Deno.rename(`${path}.tmp`, path);
    assert.deepEqual(readRegularFileSync(path, 1000, looked), second);
    // The limit holds for what was read.
    assert.throws(
      () => readRegularFileSync(path, second.length - 1, looked),
      (error) =>
        error instanceof UnreadableFileError &&
        /over the limit/.test(error.message),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readListedFileSync() reads a regular file whole with one look, leaves a larger one to the caller, and refuses what it must", async () => {
  const dir = await Deno.makeTempDir({ prefix: "jpt-read-" });
  try {
    for (const size of [0, 1, 4095, 4096, 70_000]) {
      const bytes = new Uint8Array(size);
      for (let i = 0; i < size; i++) bytes[i] = (i * 17 + 3) & 0xff;
      const path = join(dir, `f${size}`);
      await Deno.writeFile(path, bytes);
      assert.deepEqual(
        readListedFileSync(path, 1 << 20),
        bytes,
        `size ${size}`,
      );
      // Exactly at the bound it is read; one byte over, it is left.
      assert.deepEqual(readListedFileSync(path, 1 << 20, size), bytes);
      if (size > 0) {
        assert.equal(readListedFileSync(path, 1 << 20, size - 1), undefined);
        assert.throws(
          () => readListedFileSync(path, size - 1),
          (error: unknown) =>
            error instanceof UnreadableFileError && error.path === path &&
            /over the limit/.test(error.message),
        );
      }
    }
    // A listing older than the open: a directory is refused, not read.
    assert.throws(
      () => readListedFileSync(dir, 1 << 20),
      /not a regular file \(a directory\)/,
    );
    assert.throws(
      () => readListedFileSync(join(dir, "gone"), 1 << 20),
      Deno.errors.NotFound,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "readListedFileSync() reads on past the size its look saw, to the file's end",
  ignore: Deno.build.os !== "linux",
  async fn() {
    // Linux's files under /proc say they hold 0 bytes, and hold more; Deno
    // opens them only with every permission, so a child process reads one.
    const module = new URL(
      "../../src/workspace/read_bounded.ts",
      import.meta.url,
    );
    const script = `
      import { readListedFileSync } from ${JSON.stringify(module.href)};
      const path = "/proc/self/mountinfo";
      const whole = readListedFileSync(path, 1 << 20);
      let refused = "";
      try { readListedFileSync(path, 1); } catch (error) { refused = error.message; }
      console.log(JSON.stringify({
        looked: Deno.statSync(path).size,
        same: new TextDecoder().decode(whole) ===
          new TextDecoder().decode(Deno.readFileSync(path)),
        length: whole.length,
        refused,
      }));
    `;
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--allow-all", script],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(output.success, new TextDecoder().decode(output.stderr));
    const found = JSON.parse(new TextDecoder().decode(output.stdout));
    assert.equal(found.looked, 0);
    assert.ok(found.length > 1, String(found.length));
    assert.equal(found.same, true);
    // Past the limit while it is read: refused, not returned cut.
    assert.match(found.refused, /over the limit of 1/);
  },
});
