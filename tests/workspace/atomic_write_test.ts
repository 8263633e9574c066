import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFileAtomic } from "../../src/workspace/atomic_write.ts";

Deno.test("writeFileAtomic() writes new bytes and leaves no temporary file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "events.json");
    assert.equal(
      await writeFileAtomic(path, new TextEncoder().encode("[]\n")),
      true,
    );
    assert.equal(await Deno.readTextFile(path), "[]\n");
    assert.equal(
      await writeFileAtomic(path, new TextEncoder().encode("[\n]\n")),
      true,
    );
    assert.equal(await Deno.readTextFile(path), "[\n]\n");
    assert.deepEqual([...Deno.readDirSync(dir)].map((item) => item.name), [
      "events.json",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeFileAtomic() leaves a file with the same bytes untouched", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "metadata.json");
    await Deno.writeTextFile(path, "{}\n");
    const old = new Date("2020-01-01T00:00:00Z");
    await Deno.utime(path, old, old);
    assert.equal(
      await writeFileAtomic(path, new TextEncoder().encode("{}\n")),
      false,
    );
    assert.equal((await Deno.stat(path)).mtime?.getTime(), old.getTime());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeFileAtomic() fails cleanly into a missing directory", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await assert.rejects(
      writeFileAtomic(join(dir, "missing", "x.json"), new Uint8Array([1])),
      Deno.errors.NotFound,
    );
    assert.deepEqual([...Deno.readDirSync(dir)], []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
