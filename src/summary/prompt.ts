/**
 * The summary prompt. It is a versioned constant: change the text only with a
 * bump of {@linkcode PROMPT_VERSION}, so a change of behaviour is visible.
 *
 * @module
 */

import type { PreparedTurn } from "./prepared_turn.ts";
import { MAX_SUMMARY_CHARS } from "../conversation/summary_text.ts";

/** Version of {@linkcode SUMMARY_INSTRUCTIONS}. */
export const PROMPT_VERSION = 1;

/** The system prompt of every summary request. */
export const SUMMARY_INSTRUCTIONS: string = [
  "You label the turns of a conversation between a user and an AI assistant, for a turn list like `git rebase -i`.",
  'Each turn is given as a <turn id="..."> block: <request> is what the user asked, <tool_call name="..."/> a tool the assistant used, <tool_result/> or <tool_error/> whether it succeeded, and <response> the assistant\'s answer. Long texts are cut where [\u2026] appears.',
  `For each turn write exactly one factual line, at most ${MAX_SUMMARY_CHARS} characters, in the imperative mood of a commit subject (for example "Add retry backoff to stream handler"), in the language the user wrote in, saying what the turn asked for and what it accomplished. No quotes, no Markdown, no trailing period.`,
  'Answer with only a JSON object of the form {"summaries": {"<turn id>": "<summary>"}} with one entry for each turn id given and no other keys.',
].join("\n\n");

/**
 * The chat messages of a summary request.
 *
 * @param batch The packed turns.
 * @returns A system message with the instructions and a user message with the transcripts.
 */
export function summaryMessages(
  batch: readonly PreparedTurn[],
): Array<{ role: "system" | "user"; content: string }> {
  return [
    { role: "system", content: SUMMARY_INSTRUCTIONS },
    {
      role: "user",
      content: batch.map((turn) => turn.transcript).join("\n\n"),
    },
  ];
}

/**
 * The strict JSON schema of the answer: `summaries` holds exactly the packed
 * ids, all required, no others.
 *
 * @param ids The packed turn ids.
 * @returns The JSON schema.
 */
export function summarySchema(ids: readonly string[]): Record<string, unknown> {
  return {
    type: "object",
    properties: {
      summaries: {
        type: "object",
        properties: Object.fromEntries(
          ids.map((id) => [id, { type: "string" }]),
        ),
        required: [...ids],
        additionalProperties: false,
      },
    },
    required: ["summaries"],
    additionalProperties: false,
  };
}
