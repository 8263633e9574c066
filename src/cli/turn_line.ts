/**
 * One line of a turn list, `# Turn N (<event_id>): <summary>`, as `jpt turns`,
 * `jpt turns --all`, `jpt find` and `jpt show` print it.
 *
 * @module
 */

import type { TurnRow } from "../app/read/list_turns.ts";
import { sanitizeLine } from "./output.ts";
import type { Style } from "./style.ts";

/**
 * Formats one line of the turn list.
 *
 * @param row The turn.
 * @param style Colours (ids and markers), when the output is a terminal.
 * @returns `# Turn N (<event_id>): <summary>` and a newline, sanitized.
 */
export function formatTurnLine(row: TurnRow, style?: Style): string {
  const id = row.event_id === null
    ? ""
    : ` (${
      style?.id(sanitizeLine(row.event_id)) ?? sanitizeLine(row.event_id)
    })`;
  const marker = (text: string) => style?.marker(text) ?? text;
  const shown = row.summary !== null
    ? row.restored
      ? `${sanitizeLine(row.summary)} ${marker("[restored]")}`
      : sanitizeLine(row.summary)
    : row.fallback !== null
    ? `${marker("[fallback]")} ${sanitizeLine(row.fallback)}`
    : marker("[no summary]");
  const mark = row.stale === true
    ? ` ${marker("[stale]")}`
    : row.stale === null && row.summary !== null
    ? ` ${marker("[unverified]")}`
    : "";
  const source = row.source === "model" ? ` ${marker("[model]")}` : "";
  return `# Turn ${row.index + 1}${id}: ${shown}${mark}${source}\n`;
}
