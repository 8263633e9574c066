/**
 * The requests of one conversation for a Batch-API backfill: every
 * candidate packed as a direct catch-up packs it, each request as a JSONL
 * line with a `custom_id`, and what each covers kept for the state file.
 * Requests of the same model and endpoint are grouped into one batch.
 *
 * @module
 */

import type { ConversationStream } from "../conversation/stream.ts";
import type { ProviderEndpoint } from "../llm/endpoint.ts";
import { batchLine, customId } from "./batch_api.ts";
import type { SubmittedBatch } from "./batch_state.ts";
import { packEveryRequest } from "./packing.ts";
import { requestId } from "./prepared_turn.ts";
import type { ResolvedSummaryModel } from "./summary_model.ts";

/** The requests of one model and endpoint: one batch. */
export interface BatchGroup {
  /** `provider/name`. */
  model: string;
  /** Where the batch goes. */
  endpoint: ProviderEndpoint;
  /** The JSONL lines. */
  lines: string[];
  /** What each request covers, by `custom_id`. */
  requests: SubmittedBatch["requests"];
}

/** A turn left out of every request, and why. */
export interface LeftOutTurn {
  /** The turn's id (or placeholder). */
  id: string;
  /** Its index. */
  index: number;
  /** `oversized`: larger than the window; `not_sent`: fits beside nothing. */
  reason: "oversized" | "not_sent";
}

/**
 * Packs a conversation's candidates into requests and adds them to the
 * group of their model and endpoint.
 *
 * @param groups The groups so far, by model and endpoint (a new one is added
 *   when needed).
 * @param conversationId The conversation.
 * @param stream Its events.
 * @param candidates The turns to label.
 * @param options The resolved summary model and the batch size.
 * @returns The turns left out.
 */
export async function addConversationRequests(
  groups: Map<string, BatchGroup>,
  conversationId: string,
  stream: ConversationStream,
  candidates: readonly number[],
  options: { resolved: ResolvedSummaryModel; batchSize: number },
): Promise<LeftOutTurn[]> {
  const { resolved } = options;
  const model = `${resolved.model.id.provider}/${resolved.model.id.name}`;
  const key = `${model} ${resolved.endpoint.baseUrl}`;
  let group = groups.get(key);
  if (group === undefined) {
    group = {
      model,
      endpoint: resolved.endpoint,
      lines: [],
      requests: {},
    };
    groups.set(key, group);
  }
  const packed = await packEveryRequest(stream, candidates, {
    contextWindow: resolved.contextWindow.tokens,
    batchSize: options.batchSize,
  });
  const leftOut: LeftOutTurn[] = packed.oversized.map((turn) => ({
    id: turn.id,
    index: turn.index,
    reason: "oversized",
  }));
  // What is left does not fit beside anything: never sent.
  for (const index of packed.unsent) {
    leftOut.push({
      id: requestId(stream.turns()[index]!),
      index,
      reason: "not_sent",
    });
  }
  for (const batch of packed.batches) {
    const id = await customId(conversationId, batch);
    group.lines.push(batchLine(id, resolved.model, resolved.endpoint, batch));
    group.requests[id] = {
      conversation: conversationId,
      turns: batch.map((turn) => ({
        id: turn.id,
        event_id: turn.eventId ?? null,
        index: turn.index,
        fingerprint: turn.fingerprint,
        content_key: turn.contentKey,
      })),
    };
  }
  return leftOut;
}
