import { formatConversationId } from "../workspace/conversation_id.ts";
import {
  type ConversationRef,
  listConversations,
  loadConversation,
} from "../workspace/conversation_files.ts";
import { type CliContext, currentWorkspace } from "./context.ts";
import { ExitCode } from "./errors.ts";
import { formatJson, sanitizeLine } from "./output.ts";

/** One conversation in `jpt conversation ls --json`. */
export interface ConversationRow {
  /** `jp-c<id>`. */
  id: string;
  /** The title, or `null`. */
  title: string | null;
  /** Number of turns. */
  turns: number;
  /** Timestamp of the last event, else `last_activated_at`. */
  last_activity: string;
  /** `last_activated_at` from the metadata. */
  last_activated_at: string;
  /** Which storage roots hold it: `"workspace"`, `"user"`. */
  roots: string[];
  /** The directory its events are read from. */
  path: string;
}

/**
 * `jpt conversation ls`: every conversation of the workspace with its id,
 * title, number of turns, last activity and storage roots.
 *
 * @param context The command context.
 * @param options `json` for machine-readable output.
 * @returns The exit code (1 when a conversation could not be read; the rest are still listed).
 */
export async function conversationLsCommand(
  context: CliContext,
  options: { json: boolean },
): Promise<number> {
  const workspace = await currentWorkspace(context);
  const rows: ConversationRow[] = [];
  let failed = false;
  for (const ref of await listConversations(workspace)) {
    try {
      rows.push(await conversationRow(ref));
    } catch (error) {
      failed = true;
      context.io.err(
        `error: ${
          sanitizeLine(error instanceof Error ? error.message : String(error))
        }\n`,
      );
    }
  }
  context.io.out(options.json ? formatJson(rows) : formatTable(rows));
  return failed ? ExitCode.failure : ExitCode.ok;
}

async function conversationRow(ref: ConversationRef): Promise<ConversationRow> {
  const { stream, metadata, source } = await loadConversation(ref);
  const last = stream.entries.at(-1)?.timestamp;
  return {
    id: formatConversationId(ref.id),
    title: metadata.title ?? null,
    turns: stream.turns().length,
    last_activity: last ?? metadata.lastActivatedAt,
    last_activated_at: metadata.lastActivatedAt,
    roots: ref.copies.flatMap((copy) =>
      copy.root === undefined ? [] : [copy.root.kind]
    ),
    path: source.dir,
  };
}

function formatTable(rows: ConversationRow[]): string {
  if (rows.length === 0) return "No conversations\n";
  const header = ["ID", "TURNS", "LAST ACTIVITY", "ROOT", "TITLE"];
  const cells = rows.map((row) => [
    row.id,
    String(row.turns),
    row.last_activity.slice(0, 19),
    row.roots.join("+"),
    sanitizeLine(row.title ?? ""),
  ]);
  const widths = header.map((title, i) =>
    Math.max(title.length, ...cells.map((cell) => cell[i]!.length))
  );
  const line = (cell: string[]) =>
    cell.map((value, i) =>
      i === cell.length - 1 ? value : value.padEnd(widths[i]!)
    ).join("  ").trimEnd() + "\n";
  return line(header) + cells.map(line).join("");
}
