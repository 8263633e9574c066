import assert from "node:assert/strict";
import { join } from "node:path";
import { LabelStore } from "../../src/labels/label_store.ts";
import { REPO_ROOT } from "../support/paths.ts";

const key = (n: number) => n.toString(16).padStart(64, "0");
const label = (summary: string) => ({
  summary,
  model: "test/m",
  prompt_version: 1,
  time: "2026-01-01T00:00:00.000Z",
});

Deno.test("LabelStore keeps labels by content key and turn bindings", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = LabelStore.at(dir);
    assert.equal(await store.get(key(1)), undefined);
    await store.put(key(1), label("Fix the parser"));
    assert.deepEqual(await store.get(key(1)), label("Fix the parser"));
    const turn = { workspaceId: "ws1", conversationId: "178", eventId: "a1" };
    await store.bind(turn, key(1));
    assert.equal(await store.boundKey(turn), key(1));
    assert.equal(await store.boundKey({ ...turn, eventId: "b2" }), undefined);
    await store.put("../../escape", label("x"));
    assert.deepEqual(
      [...Deno.readDirSync(dir)].map((e) => e.name).sort(),
      ["labels", "turns"],
      "a key that is not a hash never becomes a path",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("LabelStore ignores a corrupt record with a warning", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const warnings: string[] = [];
    const store = LabelStore.at(dir, (line) => warnings.push(line));
    await store.put(key(2), label("Good"));
    const path = join(dir, "labels", "00", `${key(2)}.json`);
    await Deno.writeTextFile(path, "{not json");
    assert.equal(await store.get(key(2)), undefined);
    await Deno.writeTextFile(path, '{"summary": 7}');
    assert.equal(await store.get(key(2)), undefined);
    assert.equal(warnings.length, 2);
    assert.match(warnings[0]!, /corrupt record/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("LabelStore.prune() keeps the newest records within the bound", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = LabelStore.at(dir);
    for (let i = 0; i < 5; i++) {
      await store.put(key(i), label(`L${i}`));
      const path = join(dir, "labels", "00", `${key(i)}.json`);
      const time = new Date(Date.UTC(2026, 0, 1, 0, 0, i));
      await Deno.utime(path, time, time);
    }
    assert.equal(await store.prune(3), 2);
    assert.equal(await store.get(key(0)), undefined);
    assert.equal(await store.get(key(1)), undefined);
    assert.equal((await store.get(key(4)))?.summary, "L4");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("several processes writing the store at once leave only whole records", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const script = join(dir, "writer.ts");
    await Deno.writeTextFile(
      script,
      `import { LabelStore } from "${
        join(REPO_ROOT, "src", "labels", "label_store.ts")
      }";
const store = LabelStore.at(Deno.args[0]!);
const me = Deno.args[1]!;
for (let i = 0; i < 60; i++) {
  await store.put((i % 20).toString(16).padStart(64, "0"), {
    summary: "writer " + me + " round " + i,
    model: "m",
    prompt_version: 1,
    time: new Date().toISOString(),
  });
}
`,
    );
    const store = join(dir, "store");
    const writers = [0, 1, 2, 3].map((n) =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--quiet", script, store, String(n)],
      }).spawn()
    );
    for (const writer of writers) assert.ok((await writer.status).success);
    const warnings: string[] = [];
    const reader = LabelStore.at(store, (line) => warnings.push(line));
    for (let i = 0; i < 20; i++) {
      assert.match(
        (await reader.get(key(i)))!.summary,
        /^writer \d round \d+$/,
      );
    }
    assert.deepEqual(warnings, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
