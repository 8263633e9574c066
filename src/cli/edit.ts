import { join } from "node:path";
import { ConversationStream } from "../conversation/stream.ts";
import { validateEvents } from "../conversation/validate_events.ts";
import { turnSummarySettings } from "../config/load_config.ts";
import { applyPlan } from "../edit/apply_plan.ts";
import { layOutPlan, readPlan } from "../edit/plan.ts";
import { runEditor } from "../edit/run_editor.ts";
import { fingerprint } from "../summary/fingerprint.ts";
import { packNewest } from "../summary/packing.ts";
import {
  createSummarizer,
  resolveSummaryModel,
} from "../summary/summary_model.ts";
import { turnTranscript } from "../summary/transcript.ts";
import {
  loadConversation,
  type LoadedConversation,
  lockConversation,
  saveConversation,
} from "../workspace/conversation_files.ts";
import { sameBytes, writeFileAtomic } from "../workspace/atomic_write.ts";
import { FingerprintCache } from "../workspace/fingerprint_cache.ts";
import { isFile } from "../workspace/fs_probe.ts";
import type { Workspace } from "../workspace/workspace.ts";
import {
  type CliContext,
  effectiveConfig,
  targetConversation,
} from "./context.ts";
import { ExitCode, UsageError } from "./errors.ts";
import { sanitizeLine } from "./output.ts";

/** Options of `jpt edit`. */
export interface EditOptions {
  /** `--interactive`: the rebase-style plan. */
  interactive: boolean;
  /** `--events`: the raw `events.json`. */
  events: boolean;
  /** Longest wait for the on-demand summary of the last turn, in milliseconds. */
  timeoutMs: number;
}

/** Name of the plan file, as in RFD 126. */
const PLAN_FILE = "CONVERSATION";

/**
 * `jpt edit`: edit a conversation in `$JP_EDITOR`/`$VISUAL`/`$EDITOR`, as a
 * rebase-style plan (`--interactive`) or as raw `events.json` (`--events`),
 * holding the conversation lock from before the editor opens until the
 * result is written.
 *
 * @param context The command context.
 * @param target The conversation, or `undefined` for the most recently activated.
 * @param options The mode.
 * @returns 0 when written, aborted or unchanged; 1 on errors.
 */
export async function editCommand(
  context: CliContext,
  target: string | undefined,
  options: EditOptions,
): Promise<number> {
  if (options.interactive === options.events) {
    throw new UsageError("Choose one of --interactive (-i) and --events");
  }
  const { workspace, ref } = await targetConversation(context, target);
  const lock = await lockConversation(workspace, ref);
  const scratch = await Deno.makeTempDir({ prefix: "jpt-edit-" });
  try {
    const conversation = await loadConversation(ref);
    return options.events
      ? await editEvents(context, conversation, scratch)
      : await editInteractively(
        context,
        workspace,
        conversation,
        scratch,
        options.timeoutMs,
      );
  } finally {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
    await lock.release();
  }
}

async function editInteractively(
  context: CliContext,
  workspace: Workspace | undefined,
  conversation: LoadedConversation,
  scratch: string,
  timeoutMs: number,
): Promise<number> {
  const fingerprints = FingerprintCache.for(
    context.env,
    conversation.ref.id,
    workspace?.id,
  );
  await summarizeLastTurn(
    context,
    workspace,
    conversation,
    fingerprints,
    timeoutMs,
  );
  const stream = conversation.stream;
  const plan = layOutPlan(stream, (index) => {
    const turn = stream.turns()[index]!;
    const summary = turn.summary;
    return summary !== undefined
      ? { text: summary, isSummary: true }
      : { text: turn.fallbackSummary() ?? "", isSummary: false };
  });
  for (
    const item of [
      ...plan.preamble,
      ...plan.turns.flatMap((turn) => turn.events),
    ]
  ) {
    await Deno.writeTextFile(join(scratch, item.file.name), item.file.content);
  }
  await Deno.writeTextFile(join(scratch, PLAN_FILE), plan.text);
  await runEditor(context.env, PLAN_FILE, scratch);
  const edited = readPlan(
    await Deno.readTextFile(join(scratch, PLAN_FILE)),
    plan,
  );
  if (edited === undefined) {
    context.io.err("Empty plan: edit aborted, nothing written\n");
    return ExitCode.ok;
  }
  const { stream: result, report } = applyPlan(
    stream,
    plan,
    edited,
    (name) => Deno.readTextFileSync(join(scratch, name)),
  );
  const before = stream.serialize();
  const after = result.serialize();
  if (sameBytes(before, after)) {
    context.io.err("No changes\n");
    return ExitCode.ok;
  }
  const legacyLayout = await isLegacy(conversation);
  const known = new Set(validateEvents(before, { legacyLayout }).errors);
  const problems = validateEvents(after, { legacyLayout }).errors.filter((
    error,
  ) => !known.has(error));
  if (problems.length > 0) {
    for (const problem of problems) {
      context.io.err(`error: ${sanitizeLine(problem)}\n`);
    }
    context.io.err("The edited conversation is not valid; nothing written\n");
    return ExitCode.failure;
  }
  conversation.stream = result;
  await saveConversation(conversation);
  // Record what the summaries the user wrote describe, for `jpt turns --stale`.
  const rewordedIds = new Set(
    plan.turns.filter((turn) => report.reworded.includes(turn.index)).map((
      turn,
    ) => turn.start?.eventId),
  );
  const written = new Map<string, string>();
  for (const turn of result.turns()) {
    if (
      turn.id === undefined || turn.summary === undefined ||
      !rewordedIds.has(turn.id)
    ) continue;
    written.set(turn.id, await fingerprint(turnTranscript(turn, turn.id)));
  }
  await fingerprints.record(written).catch(() => {});
  const describe = (label: string, turns: number[]) =>
    turns.length === 0
      ? []
      : [`${label} ${turns.map((index) => index + 1).join(", ")}`];
  const parts = [
    ...describe("changed turn", report.changed),
    ...describe("reworded turn", report.reworded),
    ...describe("dropped turn", report.dropped),
  ];
  context.io.err(`Written: ${parts.join("; ") || "events edited"}\n`);
  return ExitCode.ok;
}

/**
 * Summarizes the most recent turn before the plan opens, when it has none and
 * generation is on (the consumer's own on-demand generation, RFD 126); on any
 * failure the plan shows the fallback.
 */
async function summarizeLastTurn(
  context: CliContext,
  workspace: Workspace | undefined,
  conversation: LoadedConversation,
  fingerprints: FingerprintCache,
  timeoutMs: number,
): Promise<void> {
  const last = conversation.stream.turns().at(-1);
  if (
    last === undefined || last.summary !== undefined ||
    last.fallbackSummary() === undefined
  ) return;
  try {
    const config =
      (await effectiveConfig(context, workspace, conversation)).values;
    if (
      !turnSummarySettings(config).auto
    ) return;
    const signal = AbortSignal.timeout(timeoutMs);
    const resolved = await resolveSummaryModel(config, context.env, { signal });
    const copy = ConversationStream.parse(conversation.stream.serialize());
    const id = copy.ensureTurnId(last.index)!;
    const packing = await packNewest([copy.turns()[last.index]!], {
      contextWindow: resolved.contextWindow.tokens,
      batchSize: 1,
    });
    const turn = packing.batch[0];
    if (turn === undefined) return; // too large for the model: the fallback shows
    const summarizer = await createSummarizer(resolved, context.env);
    const summaries = await summarizer.summarize([turn], signal);
    const summary = summaries.get(id);
    if (summary === undefined || !copy.setTurnSummary(id, summary)) return;
    conversation.stream = copy;
    await saveConversation(conversation);
    await fingerprints.record(new Map([[id, turn.fingerprint]])).catch(
      () => {},
    );
  } catch (error) {
    if (context.verbose) {
      context.io.err(
        `summary of the last turn: ${sanitizeLine(String(error))}\n`,
      );
    }
  }
}

async function editEvents(
  context: CliContext,
  conversation: LoadedConversation,
  scratch: string,
): Promise<number> {
  const path = join(scratch, "events.json");
  const original = conversation.stream.serialize();
  await Deno.writeFile(path, original);
  const legacyLayout = await isLegacy(conversation);
  while (true) {
    await runEditor(context.env, "events.json", scratch);
    const edited = await Deno.readFile(path);
    if (sameBytes(edited, original)) {
      context.io.err("No changes\n");
      return ExitCode.ok;
    }
    const report = validateEvents(edited, { legacyLayout, canonical: false });
    if (report.errors.length === 0) {
      for (const copy of conversation.ref.copies) {
        await writeFileAtomic(join(copy.dir, "events.json"), edited);
      }
      context.io.err(
        'Written. Remember: remove the "summary" of every turn whose content you changed\n',
      );
      return ExitCode.ok;
    }
    for (const error of report.errors) {
      context.io.err(`error: events.json: ${sanitizeLine(error)}\n`);
    }
    if (
      !context.io.stdinIsTerminal ||
      !confirm(context, "Reopen the editor? [Y/n] ")
    ) {
      context.io.err("Edit aborted; the conversation is unchanged\n");
      return ExitCode.failure;
    }
  }
}

function confirm(context: CliContext, question: string): boolean {
  context.io.err(question);
  const answer = prompt("") ?? "";
  return !/^n/i.test(answer.trim());
}

/** A conversation without `base_config.json` has jp's legacy layout. */
async function isLegacy(conversation: LoadedConversation): Promise<boolean> {
  return !(await isFile(join(conversation.source.dir, "base_config.json")));
}
