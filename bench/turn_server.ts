/**
 * The fake endpoint's behaviour in the query benchmarks: a quick first turn,
 * then a streamed turn of T while each summary request takes S.
 *
 * @module
 */

import {
  chatCompletion,
  type RecordedRequest,
  type Responder,
  summaryResponder,
} from "../tests/support/fake_llm.ts";

/** Whether a request asks for turn summaries (the summary prompt's opening). */
export const isSummaryRequest = (request: RecordedRequest): boolean =>
  ((request.body?.messages as Array<{ content: string }> | undefined)?.[0]
    ?.content ?? "").startsWith("You label");

/** A one-piece reply and an empty completion for anything else. */
export const quickTurn: Responder = (request) => {
  if (!request.path.endsWith("/chat/completions")) return { status: 404 };
  if (request.body?.stream) return { stream: { pieces: ["first answer"] } };
  return { json: chatCompletion("{}") };
};

/** A reply streamed in `pieces` pieces `pieceMs` apart; summaries answered after `summaryMs`. */
export function slowTurn(
  pieces: number,
  pieceMs: number,
  summaryMs: number,
): Responder {
  return (request) => {
    if (!request.path.endsWith("/chat/completions")) return { status: 404 };
    if (request.body?.stream) {
      return {
        stream: {
          pieces: Array(pieces).fill("word "),
          pieceDelayMs: pieceMs,
        },
      };
    }
    return { ...(summaryResponder()(request) as object), delayMs: summaryMs };
  };
}
