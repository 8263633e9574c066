/**
 * One process, one operation, for the write-one-summary benchmark: either a
 * bare `JSON.parse` of a conversation file, or the catch-up of a
 * conversation whose only unsummarized turn is the last (load under the
 * lock, restore and record labels, one request to an in-process model, the
 * write with its freshness check). Prints the operation's milliseconds and
 * the process's peak resident memory (VmHWM, Linux) as JSON. `prime`
 * records the file's labels in the label store first, as an earlier
 * catch-up would have, so `write` measures the steady state; `baseline`
 * does nothing (the peak memory of a process with these modules loaded).
 *
 * `deno run -A bench/write_one.ts baseline|parse|prime|write <conversation dir> <label store dir>`
 *
 * @module
 */

import { join } from "node:path";
import { catchUpConversation } from "../src/app/summarize/catch_up.ts";
import { restoreLabels } from "../src/labels/restore_labels.ts";
import { ConversationStream } from "../src/conversation/stream.ts";
import { PROMPT_VERSION } from "../src/summary/prompt.ts";
import type { PreparedTurn } from "../src/summary/prepared_turn.ts";
import { LabelStore } from "../src/labels/label_store.ts";

const [mode, dir, storeDir] = Deno.args;
const started = performance.now();
const store = LabelStore.at(storeDir!);
if (mode === "baseline") {
  // Nothing: the runtime and the modules alone.
} else if (mode === "parse") {
  JSON.parse(await Deno.readTextFile(join(dir!, "events.json")));
} else if (mode === "prime") {
  const stream = ConversationStream.parse(
    await Deno.readFile(join(dir!, "events.json")),
  );
  await restoreLabels(
    stream,
    { store, workspace: undefined, promptVersion: PROMPT_VERSION },
    { id: "1", copies: [{ root: undefined, dir: dir! }] },
    { recordFileLabels: true },
  );
} else {
  const result = await catchUpConversation({
    workspace: undefined,
    ref: { id: "1", copies: [{ root: undefined, dir: dir! }] },
    batchSize: 5,
    signal: new AbortController().signal,
    resolveModel: () =>
      Promise.resolve({
        contextWindow: 32768,
        summarizer: {
          modelId: "bench",
          summarize: (batch: readonly PreparedTurn[]) =>
            Promise.resolve(new Map(batch.map((t) => [t.id, "Bench label"]))),
        },
      }),
    labels: { store, workspace: undefined, promptVersion: PROMPT_VERSION },
  });
  if (result.summarized.length !== 1) {
    throw new Error(`expected one summary, got ${JSON.stringify(result)}`);
  }
}
const ms = performance.now() - started;
const status = await Deno.readTextFile("/proc/self/status");
const hwmKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN);
console.log(JSON.stringify({ ms, peakMb: hwmKb / 1024 }));
