/**
 * Recording a session's activation as jp writes it (dcdpr/jp 4c1c39f,
 * `record_session_activation`): the file's name, jp's field order and
 * pretty print, the conversation moved to the front, a legacy file written
 * where it lives, and fields jpt does not know kept.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  recordSessionActivation,
  sessionHistory,
  sessionStorageKey,
} from "../../src/workspace/jp_session.ts";

const SESSION = {
  id: "term-7",
  source: { type: "env" as const, key: "JP_SESSION" },
};

Deno.test("a first activation writes jp's mapping: history, id, source, pretty-printed with a final newline", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = await recordSessionActivation(
      dir,
      SESSION,
      "17800000000",
      new Date("2026-05-01T10:20:30.000Z"),
    );
    const key = await sessionStorageKey(SESSION);
    assert.match(key, /^env-JP_SESSION-[0-9a-f]{16}$/);
    assert.equal(path, join(dir, "sessions", `${key}.json`));
    assert.equal(
      await Deno.readTextFile(path!),
      `{
  "history": [
    {
      "id": 17800000000,
      "activated_at": "2026-05-01T10:20:30Z"
    }
  ],
  "id": "term-7",
  "source": {
    "type": "env",
    "key": "JP_SESSION"
  }
}
`,
    );
    assert.deepEqual(await sessionHistory(dir, SESSION), ["17800000000"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a later activation moves the conversation to the front once, keeps unknown fields, and writes nothing when it is already first", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const key = await sessionStorageKey(SESSION);
    await Deno.mkdir(join(dir, "sessions"));
    const path = join(dir, "sessions", `${key}.json`);
    await Deno.writeTextFile(
      path,
      JSON.stringify({
        history: [
          { id: 2, activated_at: "2026-01-02T00:00:00Z", pinned: true },
          { id: 1, activated_at: "2026-01-01T00:00:00.5Z" },
        ],
        id: "term-7",
        source: { type: "env", key: "JP_SESSION" },
        future: { kept: 1 },
      }),
    );
    await recordSessionActivation(
      dir,
      SESSION,
      "1",
      new Date(Date.UTC(2026, 5, 1, 0, 0, 0, 250)),
    );
    const written = JSON.parse(await Deno.readTextFile(path));
    assert.deepEqual(written, {
      history: [
        { id: 1, activated_at: "2026-06-01T00:00:00.250Z" },
        { id: 2, activated_at: "2026-01-02T00:00:00Z", pinned: true },
      ],
      id: "term-7",
      source: { type: "env", key: "JP_SESSION" },
      future: { kept: 1 },
    });
    assert.deepEqual(await sessionHistory(dir, SESSION), ["1", "2"]);
    const again = await recordSessionActivation(
      dir,
      SESSION,
      "1",
      new Date(Date.UTC(2026, 5, 1, 0, 0, 0, 250)),
    );
    assert.equal(again, undefined, "the same bytes: not rewritten");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a legacy file named by the bare value is written where it lives, gaining jp's id field; another session's file is left alone", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, "sessions"));
    const legacy = join(dir, "sessions", "term-7.json");
    await Deno.writeTextFile(
      legacy,
      JSON.stringify({
        history: [{ id: 5, activated_at: "2026-01-01T00:00:00Z" }],
        source: { type: "env", key: "JP_SESSION" },
      }),
    );
    const other = join(dir, "sessions", "env-TMUX_PANE-0000000000000000.json");
    const otherText = JSON.stringify({
      history: [],
      id: "x",
      source: { type: "env", key: "TMUX_PANE" },
    });
    await Deno.writeTextFile(other, otherText);
    const path = await recordSessionActivation(
      dir,
      SESSION,
      "6",
      new Date("2026-02-01T00:00:00Z"),
    );
    assert.equal(path, legacy);
    const written = JSON.parse(await Deno.readTextFile(legacy));
    assert.deepEqual(Object.keys(written), ["history", "id", "source"]);
    assert.equal(written.id, "term-7");
    assert.deepEqual(written.history.map((e: { id: number }) => e.id), [6, 5]);
    assert.equal(await Deno.readTextFile(other), otherText);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
