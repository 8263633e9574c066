/**
 * The usage ledger: one JSON line per label or title request jpt made, with
 * the tokens the provider reported, the model, the kind and the time, in
 * jpt's data directory (`usage/<YYYY-MM>.jsonl`: one file a month, so a
 * report from a date reads only the months it needs). Appends are single
 * short writes, so concurrent processes interleave whole lines; a line that
 * does not parse is skipped when read.
 *
 * @module
 */

import { join } from "../platform/path.ts";
import { jptDataDir } from "./jpt_data_dir.ts";
import { appendToRegularFile } from "./append_regular.ts";
import type { EnvReader } from "./user_dirs.ts";

/** One request, as the ledger keeps it. */
export interface UsageRecord {
  /** When (RFC 3339, UTC). */
  time: string;
  /** `provider/name`. */
  model: string;
  /** What it was for. */
  kind: "label" | "title";
  /** Tokens of the prompt. */
  prompt_tokens: number;
  /** Tokens of the answer. */
  completion_tokens: number;
  /** Both, as reported. */
  total_tokens: number;
}

/**
 * The ledger's directory.
 *
 * @param env Environment access.
 * @returns `usage/` in jpt's data directory, or `undefined` without one.
 */
export function usageDir(env: EnvReader): string | undefined {
  const dir = jptDataDir(env);
  return dir === undefined ? undefined : join(dir, "usage");
}

/**
 * The sink that accounts each request of one model and kind (appends a
 * record stamped with the time of the answer).
 *
 * @param env Environment access.
 * @param kind What the requests are for.
 * @param model `provider/name`.
 * @returns The sink, for the tokens each request reports.
 */
export function usageSink(
  env: EnvReader,
  kind: UsageRecord["kind"],
  model: string,
): (
  usage: Pick<
    UsageRecord,
    "prompt_tokens" | "completion_tokens" | "total_tokens"
  >,
) => void {
  return (usage) =>
    appendUsage(env, {
      time: new Date().toISOString(),
      model,
      kind,
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.total_tokens,
    });
}

/**
 * Appends one record. Never throws: accounting never stops a label.
 *
 * @param env Environment access.
 * @param record The record.
 */
export function appendUsage(env: EnvReader, record: UsageRecord): void {
  const dir = usageDir(env);
  if (dir === undefined) return;
  try {
    Deno.mkdirSync(dir, { recursive: true });
    appendToRegularFile(
      join(dir, `${record.time.slice(0, 7)}.jsonl`),
      JSON.stringify(record) + "\n",
    );
  } catch {
    // Nowhere to keep it.
  }
}

/**
 * Reads the records from a day on.
 *
 * @param env Environment access.
 * @param since The first day (`YYYY-MM-DD`), or `undefined` for all.
 * @returns The records, oldest month first.
 */
export async function readUsage(
  env: EnvReader,
  since?: string,
): Promise<UsageRecord[]> {
  const dir = usageDir(env);
  if (dir === undefined) return [];
  const months: string[] = [];
  try {
    for await (const item of Deno.readDir(dir)) {
      const month = /^(\d{4}-\d{2})\.jsonl$/.exec(item.name)?.[1];
      if (item.isFile && month !== undefined) months.push(month);
    }
  } catch {
    return [];
  }
  const records: UsageRecord[] = [];
  for (const month of months.sort()) {
    if (since !== undefined && month < since.slice(0, 7)) continue;
    const text = await Deno.readTextFile(join(dir, `${month}.jsonl`));
    for (const line of text.split("\n")) {
      const record = parseRecord(line);
      if (record === undefined) continue;
      if (since !== undefined && record.time.slice(0, 10) < since) continue;
      records.push(record);
    }
  }
  return records;
}

function parseRecord(line: string): UsageRecord | undefined {
  if (line.trim() === "") return undefined;
  try {
    const value = JSON.parse(line) as Partial<UsageRecord>;
    const count = (n: unknown) =>
      typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
    if (
      typeof value.time === "string" && typeof value.model === "string" &&
      (value.kind === "label" || value.kind === "title") &&
      count(value.prompt_tokens) && count(value.completion_tokens) &&
      count(value.total_tokens)
    ) return value as UsageRecord;
  } catch {
    // skipped
  }
  return undefined;
}
