/**
 * Bounded turn transcripts (RFD 126, What is Summarized): a turn becomes a
 * compact `<turn id="...">` block built from its raw events. Requests and
 * assistant messages are kept (over 4,000 characters they are cut to their
 * first and last halves around `[…]`), tools appear by name and outcome only
 * (arguments are never decoded), and reasoning, `turn_start` and inquiry
 * events are left out. Text is escaped so nothing inside a turn can close or
 * forge a block. Only the entries that appear are parsed.
 *
 * @module
 */

import type { Turn } from "../conversation/turn.ts";

/** Longest request or response text kept whole, in code points. */
export const MAX_MESSAGE_CHARS = 4000;

/**
 * Builds a turn's transcript block.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConversationStream, turnTranscript } from "@jpt/cli";
 * const stream = ConversationStream.parse(new TextEncoder().encode(JSON.stringify([
 *   { event_id: "t1", timestamp: "2026-01-01 00:00:00.0", type: "turn_start" },
 *   { timestamp: "2026-01-01 00:00:00.1", type: "chat_request", content: "a < b?" },
 * ])));
 * assert.equal(
 *   turnTranscript(stream.turns()[0]!, "t1"),
 *   '<turn id="t1">\n<request>a &lt; b?</request>\n</turn>',
 * );
 * ```
 *
 * @param turn The turn.
 * @param id The turn's `event_id` (the block's id).
 * @returns The block, lines joined by `\n`, without a trailing newline.
 */
export function turnTranscript(turn: Turn, id: string): string {
  const lines = [`<turn id="${escapeXml(id)}">`];
  for (const event of turn.events) {
    switch (event.type) {
      case "chat_request": {
        const content = event.data().content;
        if (typeof content === "string") {
          lines.push(`<request>${escapeXml(bounded(content))}</request>`);
        }
        break;
      }
      case "chat_response": {
        const data = event.data();
        if (typeof data.message === "string") {
          lines.push(
            `<response>${escapeXml(bounded(data.message))}</response>`,
          );
        } else if (!("reasoning" in data) && "data" in data) {
          lines.push(
            `<response>${
              escapeXml(bounded(JSON.stringify(data.data)))
            }</response>`,
          );
        }
        break;
      }
      case "tool_call_request": {
        const name = event.data().name;
        lines.push(
          `<tool_call name="${
            escapeXml(typeof name === "string" ? name : "")
          }"/>`,
        );
        break;
      }
      case "tool_call_response":
        lines.push(
          event.data().is_error === true ? "<tool_error/>" : "<tool_result/>",
        );
        break;
    }
  }
  lines.push("</turn>");
  return lines.join("\n");
}

/**
 * Cuts text longer than {@linkcode MAX_MESSAGE_CHARS} code points to its
 * first and last halves joined by `[…]`.
 *
 * @param text The text.
 * @returns The text, at most 4,000 code points plus the marker.
 */
export function bounded(text: string): string {
  if (text.length <= MAX_MESSAGE_CHARS) return text;
  const points = Array.from(text);
  if (points.length <= MAX_MESSAGE_CHARS) return text;
  const half = MAX_MESSAGE_CHARS / 2;
  return `${points.slice(0, half).join("")}[…]${points.slice(-half).join("")}`;
}

/**
 * Escapes text for the transcript: `&`, `<`, `>` and `"`.
 *
 * @param text Untrusted text.
 * @returns The escaped text.
 */
export function escapeXml(text: string): string {
  return text.replace(
    /[&<>"]/g,
    (c) =>
      c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&quot;",
  );
}
