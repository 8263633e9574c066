/**
 * A stand-in for released jp chatting in a conversation, for `jpt watch`
 * tests: `deno run -A jp_emulator.ts DIR LOCK HOLD_MS TURNS`, TURNS times:
 * take jp's lock (`flock` on LOCK, waiting for it), write the holder JSON,
 * append a complete turn, re-save events.json as a pre-RFD jp does (every
 * `summary` and `event_id` dropped, 2-space JSON, temporary file renamed
 * over it), hold the lock HOLD_MS, checking that nobody else wrote the file
 * meanwhile, then close the lock and delete the lock file. Prints one JSON
 * line per turn: `{"turn", "violations"}`.
 *
 * `… TURNS resave GAP_MS`: no turn is appended, the file is only re-saved
 * (TURNS saves, GAP_MS apart after each lock is released), as jp saves a
 * conversation it did not change.
 *
 * @module
 */

import { join } from "node:path";

const [dir, lockPath, holdText, turnsText, mode, gapText] = Deno.args;
const resave = mode === "resave";
const hold = Number(holdText);
const events = join(dir!, "events.json");

for (let turn = 0; turn < Number(turnsText); turn++) {
  const lock = await Deno.open(lockPath!, {
    read: true,
    write: true,
    create: true,
  });
  await lock.lock(true);
  await lock.truncate(0);
  await lock.write(
    new TextEncoder().encode(
      JSON.stringify({ pid: Deno.pid, acquired_at: new Date().toISOString() }),
    ),
  );
  const entries = JSON.parse(await Deno.readTextFile(events)) as Array<
    Record<string, unknown>
  >;
  for (const entry of entries) {
    delete entry.event_id;
    if (entry.type === "turn_start") delete entry.summary;
  }
  const stamp = `2026-02-01 00:${
    String(Math.floor(turn / 60)).padStart(2, "0")
  }:${String(turn % 60).padStart(2, "0")}.0`;
  if (!resave) {
    entries.push(
      { timestamp: stamp, type: "turn_start" },
      { timestamp: stamp, type: "chat_request", content: `jp turn ${turn}` },
      { timestamp: stamp, type: "chat_response", message: `answer ${turn}` },
    );
  }
  const text = JSON.stringify(entries, null, 2) + "\n";
  await Deno.writeTextFile(`${events}.emulator.tmp`, text);
  await Deno.rename(`${events}.emulator.tmp`, events);
  let violations = 0;
  const until = performance.now() + hold;
  do {
    if (await Deno.readTextFile(events) !== text) violations++;
    await new Promise((resolve) => setTimeout(resolve, 10));
  } while (performance.now() < until);
  lock.close();
  await Deno.remove(lockPath!).catch(() => {});
  console.log(JSON.stringify({ turn, violations }));
  if (resave) {
    await new Promise((resolve) => setTimeout(resolve, Number(gapText ?? 0)));
  }
}
