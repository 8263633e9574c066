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

Deno.test("writeFileAtomic() behaves the same for small files (blocking calls) and large ones", async (t) => {
  // 1 MiB is where the blocking calls end.
  for (const size of [100, 3 << 20]) {
    await t.step(`${size} bytes`, async () => {
      const dir = await Deno.makeTempDir();
      try {
        const bytes = new Uint8Array(size).fill(97);
        const other = new Uint8Array(size).fill(98);
        // A private file stays private; a new file gets 0644.
        const path = join(dir, "labels.json");
        await Deno.writeFile(path, other, { mode: 0o600 });
        await Deno.chmod(path, 0o600);
        assert.equal(
          await writeFileAtomic(path, [
            bytes.subarray(0, 10),
            bytes.subarray(10),
          ]),
          true,
        );
        assert.deepEqual(await Deno.readFile(path), bytes);
        assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
        assert.equal(await writeFileAtomic(path, bytes), false);
        const fresh = join(dir, "new.json");
        assert.equal(await writeFileAtomic(fresh, bytes), true);
        assert.equal(
          (await Deno.stat(fresh)).mode! & 0o777,
          0o644,
        );
        // A link inside the confining directory is written through; one
        // leading outside is refused, and nothing is left behind.
        const inside = join(dir, "inside");
        await Deno.mkdir(inside);
        await Deno.symlink(fresh, join(inside, "link.json"));
        await assert.rejects(
          writeFileAtomic(join(inside, "link.json"), other, { within: inside }),
          /outside/,
        );
        assert.equal(
          await writeFileAtomic(join(inside, "link.json"), other, {
            within: dir,
          }),
          true,
        );
        assert.ok((await Deno.lstat(join(inside, "link.json"))).isSymlink);
        assert.deepEqual(await Deno.readFile(fresh), other);
        assert.deepEqual(
          [...Deno.readDirSync(dir)].map((item) => item.name).sort(),
          ["inside", "labels.json", "new.json"],
        );
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  }
});
