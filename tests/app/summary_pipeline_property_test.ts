/**
 * The summary pipeline, driven through many interleavings (a property test
 * with a fixed seed): queries append turns and hand their share to
 * `summarizeForQuery` (what the detached worker runs) without waiting for
 * it, while an injected model answers after random delays or fails, the
 * user labels, unlabels and edits turns (as `jpt edit` does, recording the
 * user's word), and released jp saves (dropping every `event_id` and
 * summary) under the real lock. Real files, the real lease, lock and label
 * store; only the model and the timing are the test's.
 *
 * Invariants, checked after every case:
 * - every model summary in the file was made for the content its turn has
 *   now (the fingerprint check at write time; restores by content);
 * - a summary the user wrote is never replaced by a model's, and one the
 *   user removed never comes back;
 * - no turn's content is asked for twice when nothing failed (removed and
 *   edited turns are asked for again, under their new content);
 * - when nothing failed and the backlog fits the budget, every completed
 *   turn that is not oversized has a summary once the last worker ends
 *   (and a read under the lock has put back what a jp save dropped).
 *
 * `JPT_PROPERTY_CASES` sets the number of cases (`deno task property`
 * runs ten times the suite's); `JPT_PROPERTY_SEED` the first seed.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Services } from "../../src/app/services.ts";
import { summarizeForQuery } from "../../src/app/summarize/summarize_for_query.ts";
import { catchUpConversation } from "../../src/app/summarize/catch_up.ts";
import { Entry } from "../../src/conversation/entry.ts";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { restoreLabels } from "../../src/labels/restore_labels.ts";
import { recordUserEdits } from "../../src/labels/user_edits.ts";
import { candidateIndices } from "../../src/summary/candidates.ts";
import type { PreparedTurn } from "../../src/summary/prepared_turn.ts";
import { turnContentKey } from "../../src/summary/turn_content_key.ts";
import { writeFileAtomic } from "../../src/workspace/atomic_write.ts";
import { lockConversationWaiting } from "../../src/workspace/conversation_lock.ts";
import { resolveConversation } from "../../src/workspace/conversation_ref.ts";
import { withConversation } from "../../src/workspace/unit_of_work.ts";
import { Workspace } from "../../src/workspace/workspace.ts";
import { generator } from "../support/seeded.ts";
import { testSession } from "../support/session.ts";
import {
  releasedJpBytes,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

const CASES = Number(Deno.env.get("JPT_PROPERTY_CASES") ?? "100");
const FIRST_SEED = Number(Deno.env.get("JPT_PROPERTY_SEED") ?? "126");
const TIMESTAMP = "2026-01-01 00:00:00.0";
/** A context window that every normal turn fits and an oversized one does not. */
const CONTEXT_WINDOW = 6000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the test saw happen in one case. */
interface Trace {
  /** Times each content key was asked for. */
  asked: Map<string, number>;
  /** Content keys that were in a failed request. */
  failedKeys: Set<string>;
  /** Content key → the user's current summary for it. */
  userWrote: Map<string, string>;
  /** Content key → summaries the user removed from it. */
  userRemoved: Map<string, Set<string>>;
  /** Content keys the user removed a summary from or edited away. */
  reasked: Set<string>;
  /** Content keys of oversized turns. */
  oversized: Set<string>;
  /** Turns that became candidates again through the user (removals, edits). */
  extraCandidates: number;
  /** What happened, in order (shown when the case fails). */
  story: string[];
}

async function runCase(
  seed: number,
  story: string[],
): Promise<string | undefined> {
  const rng = generator(seed);
  const batchSize = rng.int(1, 5);
  const queries = rng.int(2, 6);
  const failRate = rng.chance(0.3) ? 0.35 : 0;
  const oversizedQuery = rng.chance(0.3) ? rng.int(0, queries - 2) : -1;
  const userActions = rng.int(0, 2);
  const jpSaves = rng.int(0, 2);
  const trace: Trace = {
    asked: new Map(),
    failedKeys: new Set(),
    userWrote: new Map(),
    userRemoved: new Map(),
    reasked: new Set(),
    oversized: new Set(),
    extraCandidates: 0,
    story,
  };
  story.push(
    `batch ${batchSize}, ${queries} queries, fail rate ${failRate}, oversized query ${oversizedQuery}`,
  );
  await using ws = await tempWorkspace();
  const session = testSession(ws);
  const workspace = await Workspace.open(ws.root, session.env);
  const initial = ConversationStream.parse(
    new TextEncoder().encode("[]\n"),
  );
  for (let i = 0; i < rng.int(0, 2); i++) {
    initial.appendEvent({ timestamp: TIMESTAMP, type: "turn_start" });
    initial.appendEvent({
      timestamp: TIMESTAMP,
      type: "chat_request",
      content: `old question ${i} (${seed})`,
    });
    initial.appendEvent({
      timestamp: TIMESTAMP,
      type: "chat_response",
      message: `old answer ${i}`,
    });
    initial.labelTurn(i, undefined, `Old label ${i}`);
  }
  await writeConversation(ws.conversations, "17800000000", initial.serialize());
  const ref = await resolveConversation(workspace, "17800000000");
  const labels = new Services(session).labels(workspace);
  // The labels already in the file are known to the store (a jpt read has
  // seen them): a jp save cannot lose them.
  await restoreLabels(initial, labels, ref, { recordFileLabels: true });
  const events = join(ref.copies[0]!.dir, "events.json");
  let requests = 0;
  const model = {
    contextWindow: CONTEXT_WINDOW,
    summarizer: {
      modelId: "sim/model",
      async summarize(batch: readonly PreparedTurn[], signal: AbortSignal) {
        for (const turn of batch) {
          trace.asked.set(
            turn.contentKey,
            (trace.asked.get(turn.contentKey) ?? 0) + 1,
          );
        }
        const n = ++requests;
        trace.story.push(
          `request ${n}: ${
            batch.map((t) => `${t.index}:${t.contentKey.slice(0, 6)}`)
          }`,
        );
        await pause(rng.int(0, 12));
        signal.throwIfAborted();
        if (rng.chance(failRate)) {
          for (const turn of batch) trace.failedKeys.add(turn.contentKey);
          throw new Error("503 from the simulated provider");
        }
        return new Map(
          batch.map((
            turn,
          ) => [turn.id, `Sum ${turn.contentKey.slice(0, 10)} #${n}`]),
        );
      },
    },
  };
  const unit = <T>(work: Parameters<typeof withConversation<T>>[3]) =>
    withConversation(workspace, ref, { lock: "wait", waitMs: 10_000 }, work);
  const workers: Promise<unknown>[] = [];
  let lastTurn = -1;

  const query = async (k: number) => {
    let found = 0;
    let before = 0;
    await unit(async (conversation) => {
      const stream = conversation.stream;
      await restoreLabels(stream, labels, ref, { recordFileLabels: true });
      before = stream.turns().length;
      found = Math.min(candidateIndices(stream).length, batchSize);
      stream.appendEvent({ timestamp: TIMESTAMP, type: "turn_start" });
      stream.appendEvent({
        timestamp: TIMESTAMP,
        type: "chat_request",
        content: k === oversizedQuery
          ? `huge ${seed} ${k} ` + "word ".repeat(8000)
          : `question ${k} of case ${seed}`,
      });
    });
    lastTurn = before;
    trace.story.push(`query ${k}: turn ${before}, hands ${found}`);
    if (found > 0) {
      workers.push(summarizeForQuery({
        env: session.env,
        workspace,
        ref,
        labels,
        batchSize,
        maxTurns: found,
        beforeIndex: before,
        resolveModel: () => Promise.resolve(model),
        covered: new Set(),
        lockDeadline: Date.now() + 10_000,
        leaseWaitMs: 30_000,
        pollMs: 2,
        signal: new AbortController().signal,
        log: (line) => trace.story.push(`worker ${k}: ${line}`),
      }));
    }
    await pause(rng.int(0, 8));
    await unit((conversation) => {
      conversation.stream.appendEvent({
        timestamp: TIMESTAMP,
        type: "chat_response",
        message: `answer ${k}`,
      });
    });
  };

  const userAct = async (n: number) => {
    await unit(async (conversation) => {
      const stream = conversation.stream;
      const turns = stream.turns().filter((turn) => turn.isComplete());
      if (turns.length === 0) return;
      const turn = turns[rng.int(0, turns.length - 1)]!;
      const key = await turnContentKey(turn);
      const before = stream.snapshot();
      const kind = rng.int(0, 2);
      trace.story.push(
        `user ${["labels", "unlabels", "edits"][kind]} turn ${turn.index} (${
          key.slice(0, 6)
        })`,
      );
      if (kind === 0) {
        const text = `User label ${n}`;
        stream.labelTurn(turn.index, undefined, text);
        trace.userWrote.set(key, text);
        await recordUserEdits(labels, ref, before, stream);
      } else if (kind === 1 && turn.summary !== undefined) {
        stream.clearSummaryOfTurn(turn.index);
        trace.userWrote.delete(key);
        const removed = trace.userRemoved.get(key) ?? new Set();
        removed.add(turn.summary);
        trace.userRemoved.set(key, removed);
        trace.reasked.add(key);
        trace.extraCandidates++;
        await recordUserEdits(labels, ref, before, stream);
      } else if (kind === 2) {
        // The user changes the request (as jpt edit does: its summary goes).
        const entries = [...stream.entries];
        const at = turn.entryIndices.find((i) =>
          entries[i]!.type === "chat_request"
        );
        if (at === undefined) return;
        const tree = entries[at]!.tree();
        tree.set("content", `edited ${n} of case ${seed}`);
        entries[at] = Entry.fromTree(tree);
        const edited = stream.withEntries(entries);
        edited.clearSummaryOfTurn(turn.index);
        trace.userWrote.delete(key);
        trace.reasked.add(key);
        trace.extraCandidates++;
        await recordUserEdits(labels, ref, before, edited);
        conversation.stream = edited;
      }
    });
  };

  const jpSave = async () => {
    const lock = await lockConversationWaiting(workspace, ref, 10_000);
    trace.story.push("jp saves");
    try {
      await writeFileAtomic(
        events,
        releasedJpBytes(await Deno.readFile(events)),
      );
      await pause(rng.int(0, 4));
    } finally {
      await lock.release();
    }
  };

  // The user and jp act while all but the last query run.
  const actors = (async () => {
    const acts: Array<() => Promise<void>> = [
      ...Array.from({ length: userActions }, (_, n) => () => userAct(n)),
      ...Array.from({ length: jpSaves }, () => jpSave),
    ];
    await Promise.all(acts.map(async (act) => {
      await pause(rng.int(0, 15));
      await act();
    }));
  })();
  for (let k = 0; k < queries - 1; k++) await query(k);
  await actors;
  await query(queries - 1);
  await Promise.all(workers);
  // The next read under the lock (any jpt command's) puts back what a jp
  // save dropped; it asks for nothing.
  await catchUpConversation({
    workspace,
    ref,
    batchSize: 1,
    maxRequests: 0,
    signal: new AbortController().signal,
    resolveModel: () => Promise.reject(new Error("nothing is asked")),
    labels,
  });

  const stream = ConversationStream.parse(await Deno.readFile(events));
  const turns = stream.turns();
  const failed = trace.failedKeys.size > 0;
  for (const turn of turns) {
    if (!turn.isComplete()) continue;
    const key = await turnContentKey(turn);
    const summary = turn.summary;
    const where = `turn ${turn.index + 1} (${summary ?? "no summary"})`;
    if (
      turn.events.some((e) => String(e.data().content ?? "").startsWith("huge"))
    ) {
      trace.oversized.add(key);
    }
    if (summary?.startsWith("Sum ")) {
      if (!summary.startsWith(`Sum ${key.slice(0, 10)} `)) {
        return `${where}: a model summary made for other content`;
      }
      if (trace.userWrote.has(key)) {
        return `${where}: the model's summary replaced the user's "${
          trace.userWrote.get(key)
        }"`;
      }
    }
    if (summary !== undefined && trace.userRemoved.get(key)?.has(summary)) {
      return `${where}: a summary the user removed came back`;
    }
    if (
      summary?.startsWith("User label") && trace.userWrote.get(key) !== summary
    ) {
      return `${where}: a user label on content it was not written for`;
    }
  }
  for (const [key, times] of trace.asked) {
    if (times > 1 && !trace.failedKeys.has(key) && !trace.reasked.has(key)) {
      return `content ${
        key.slice(0, 10)
      } asked for ${times} times with nothing failed`;
    }
  }
  if (!failed && trace.extraCandidates < batchSize) {
    for (const turn of turns) {
      if (!turn.isComplete() || turn.index === lastTurn) continue;
      const key = await turnContentKey(turn);
      if (turn.summary === undefined && !trace.oversized.has(key)) {
        return `turn ${
          turn.index + 1
        } of ${turns.length} has no summary after the last worker (batch ${batchSize})`;
      }
    }
  }
  return undefined;
}

Deno.test(`the summary pipeline keeps its invariants over ${CASES} random interleavings (seed ${FIRST_SEED})`, async () => {
  for (let seed = FIRST_SEED; seed < FIRST_SEED + CASES; seed++) {
    const story: string[] = [];
    const problem = await runCase(seed, story);
    assert.equal(
      problem,
      undefined,
      `seed ${seed}: ${problem} (rerun: JPT_PROPERTY_SEED=${seed} JPT_PROPERTY_CASES=1)\n${
        story.join("\n")
      }`,
    );
  }
});
