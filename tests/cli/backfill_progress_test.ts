import assert from "node:assert/strict";
import type { BackfillOutcome } from "../../src/app/summarize/backfill.ts";
import { BackfillProgress } from "../../src/cli/backfill_progress.ts";
import { fitColumns } from "../../src/cli/columns.ts";

const outcome = (
  id: string,
  summarized: number,
  failed = 0,
): BackfillOutcome => ({
  id,
  path: `/w/${id}`,
  status: "ran",
  summarized: Array.from({ length: summarized }, (_, i) => ({
    id: `t${i}`,
    index: i,
    summary: "s",
  })),
  restored: [{ id: "r", index: 9, summary: "r" }],
  skipped: Array.from({ length: failed }, (_, i) => ({
    id: `f${i}`,
    index: i,
    reason: "model_error" as const,
  })),
});

Deno.test("the live line counts conversations, turns, elapsed time and an ETA", () => {
  let now = 0;
  const written: string[] = [];
  const progress = new BackfillProgress({
    write: (text) => written.push(text),
    live: true,
    now: () => now,
  });
  progress.start(4);
  assert.equal(
    progress.line(),
    "0/4 conversations · 0 summarized · 0 restored · 0 failed · 0:00",
  );
  now = 10_000;
  progress.turns("jp-c2", 2);
  progress.finished(outcome("jp-c1", 3, 1));
  assert.equal(
    progress.line(),
    "1/4 conversations · 5 summarized · 1 restored · 1 failed · 0:10 · ETA 0:30",
  );
  progress.stop();
  assert.equal(written.at(-1), "\r\u001b[K", "stop clears the line");
  assert.ok(written.every((text) => !text.includes("\n")), "never a newline");
});

Deno.test("off a terminal, one line per finished conversation, none for a single one", () => {
  let now = 0;
  const written: string[] = [];
  const many = new BackfillProgress({
    write: (t) => written.push(t),
    live: false,
    now: () => now,
  });
  many.start(2);
  now = 65_000;
  many.finished({
    ...outcome("jp-c1", 0),
    status: "locked",
    error: "held by\u001b[31m jp",
  });
  many.finished(outcome("jp-c2", 2));
  many.stop();
  assert.deepEqual(written, [
    "[1/2] jp-c1: skipped: held by jp (1:05)\n",
    "[2/2] jp-c2: 2 summarized, 1 restored, 0 failed (1:05)\n",
  ]);
  const one: string[] = [];
  const single = new BackfillProgress({
    write: (t) => one.push(t),
    live: false,
  });
  single.start(1);
  single.finished(outcome("jp-c1", 1));
  assert.deepEqual(one, []);
});

Deno.test("a model call waiting for a retry shows on the live line until the wait is over", () => {
  let now = 0;
  const written: string[] = [];
  const progress = new BackfillProgress({
    write: (text) => written.push(text),
    live: true,
    now: () => now,
  });
  progress.start(2);
  progress.retrying(429, 12_400);
  assert.match(written.at(-1)!, / · retrying in 13 s \(429\)$/);
  now = 5_000;
  assert.match(progress.line(), / · retrying in 8 s \(429\)$/);
  now = 12_500;
  assert.doesNotMatch(progress.line(), /retrying/);
  progress.stop();
});

Deno.test("the live line is cut to the terminal's width, so it never wraps", () => {
  for (const columns of [40, 60, 200]) {
    const written: string[] = [];
    const progress = new BackfillProgress({
      write: (text) => written.push(text),
      live: true,
      now: () => 0,
      width: { columns, fit: fitColumns },
    });
    progress.start(1200);
    progress.retrying(503, 30_000);
    const drawn = written.at(-1)!.replace("\r\u001b[K", "");
    assert.ok(
      [...drawn].length <= columns - 1,
      `${columns} columns: ${JSON.stringify(drawn)}`,
    );
    if (columns === 200) assert.match(drawn, /retrying in 30 s \(503\)$/);
    else assert.ok(drawn.endsWith("…"), `${columns}: cut with an ellipsis`);
    progress.stop();
  }
});
