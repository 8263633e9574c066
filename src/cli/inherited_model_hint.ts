/**
 * The fix for a summary model that cannot work and was not chosen for
 * summaries (inherited from the title or the assistant model, often a
 * conversation's stored one): the same lines in `summarize`, `watch` and
 * their plugin output.
 *
 * @module
 */

import { sanitizeLine } from "./output.ts";

/**
 * The hint lines.
 *
 * @param model The summary model (`provider/name`).
 * @param from Where it was inherited from.
 * @returns Indented lines, each ending in a newline.
 */
export function inheritedModelHint(model: string, from: string): string {
  return `  The summary model ${sanitizeLine(model)} is inherited from ${
    sanitizeLine(from)
  }.\n` + FIX;
}

/**
 * The hint lines for several inherited models (conversations store their own).
 *
 * @param models Each model, where it was inherited from, and the
 *   conversations it stopped.
 * @returns Indented lines, each ending in a newline.
 */
export function inheritedModelsHint(
  models: ReadonlyArray<
    { model: string; from: string; conversations: readonly string[] }
  >,
): string {
  const lines = models.map(({ model, from, conversations }) => {
    const named = conversations.slice(0, 3).join(", ") +
      (conversations.length > 3 ? `, … (${conversations.length})` : "");
    return `    ${sanitizeLine(model)} from ${sanitizeLine(from)}: ${
      sanitizeLine(named)
    }\n`;
  });
  return "  The summary models are inherited, none chosen for summaries:\n" +
    lines.join("") + FIX.replace("inherited model", "inherited models");
}

const FIX =
  "  Fix: choose a model for summaries in .jp/jpt.toml (jp never reads it):\n" +
  "    [conversation.turn_summary.generate.model]\n" +
  '    id = "ollama/llama3.2:3b"\n' +
  "  or give the inherited model what the message asks for (a key).\n";
