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
  }.\n` +
    "  Fix: choose a model for summaries in .jp/jpt.toml (jp never reads it):\n" +
    "    [conversation.turn_summary.generate.model]\n" +
    '    id = "ollama/llama3.2:3b"\n' +
    "  or give the inherited model what the message asks for (its key).\n";
}
