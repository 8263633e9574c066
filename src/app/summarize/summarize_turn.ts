/**
 * Summarize one turn on demand (RFD 126, the consumer's own generation): what
 * `jpt edit -i` does for the newest turn before the plan opens, so the plan
 * shows a real summary rather than the fallback when the model is quick.
 *
 * @module
 */

import { turnSummarySettings } from "../../config/load_config.ts";
import { ConversationStream } from "../../conversation/stream.ts";
import { packNewest } from "../../summary/packing.ts";
import {
  type LoadedConversation,
  saveConversation,
} from "../../workspace/conversation_io.ts";
import {
  type LabelRecorder,
  recordLabels,
} from "../../labels/label_recorder.ts";
import type { Services } from "../services.ts";
import type { Workspace } from "../../workspace/workspace.ts";

/** What {@linkcode summarizeLastTurn} needs besides the conversation. */
export interface SummarizeTurnOptions {
  /** The workspace holding the conversation, if any. */
  workspace: Workspace | undefined;
  /** Longest wait for the model, in milliseconds. */
  timeoutMs: number;
  /** Where the written label is kept too. */
  labels?: LabelRecorder;
  /** Why it did not summarize, when it failed. */
  log?: (line: string) => void;
}

/**
 * Summarizes the newest turn of a conversation the caller holds the lock of,
 * when it has no summary and generation is on; writes it and updates
 * `conversation.stream`. Any failure leaves the conversation as it was.
 *
 * @param services The flow's services (config, summary model).
 * @param conversation The conversation, loaded under its lock.
 * @param options See {@linkcode SummarizeTurnOptions}.
 * @returns Whether a summary was written.
 */
export async function summarizeLastTurn(
  services: Services,
  conversation: LoadedConversation,
  options: SummarizeTurnOptions,
): Promise<boolean> {
  const last = conversation.stream.turns().at(-1);
  if (
    last === undefined || last.summary !== undefined ||
    last.fallbackSummary() === undefined
  ) return false;
  try {
    const config = (await services.config(options.workspace, conversation))
      .values;
    if (!turnSummarySettings(config).auto) return false;
    const signal = AbortSignal.timeout(options.timeoutMs);
    const resolved = await services.resolveSummaryModel(config, { signal });
    const copy = ConversationStream.parse(conversation.stream.serialize());
    const id = copy.ensureTurnId(last.index)!;
    const packing = await packNewest([copy.turns()[last.index]!], {
      contextWindow: resolved.contextWindow.tokens,
      batchSize: 1,
    });
    const turn = packing.batch[0];
    if (turn === undefined) return false; // too large for the model: the fallback shows
    const { summarizer } = await services.summaryModelOf(resolved);
    const summaries = await summarizer.summarize([turn], signal);
    const summary = summaries.get(id);
    if (summary === undefined || !copy.setTurnSummary(id, summary)) {
      return false;
    }
    conversation.stream = copy;
    await saveConversation(conversation);
    if (options.labels !== undefined) {
      await recordLabels(options.labels, conversation.ref, [{
        contentKey: turn.contentKey,
        index: last.index,
        summary: copy.turns()[last.index]!.summary!,
        source: "model",
        model: summarizer.modelId,
        eventId: id,
        written: true,
      }]);
    }
    return true;
  } catch (error) {
    options.log?.(`summary of the last turn: ${String(error)}`);
    return false;
  }
}
