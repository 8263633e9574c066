/**
 * `jpt usage`: the tokens jpt's label and title requests used, per day,
 * model and kind, from the usage ledger in jpt's data directory, with a
 * cost where `usage.prices."<provider/name>"` gives the price per million
 * input and output tokens (a jpt setting, in `.jp/jpt.toml` or jpt's user
 * config).
 *
 * @module
 */

import { getPath } from "../../config/config_tree.ts";
import { readUsage } from "../../workspace/usage_ledger.ts";
import { optionalWorkspace, type Session } from "../session.ts";
import { Services } from "../services.ts";

/** One row of the report (also the shape of `jpt usage --json`'s rows). */
export interface UsageRow {
  /** The day (`YYYY-MM-DD`, UTC). */
  day: string;
  /** `provider/name`. */
  model: string;
  /** `label` or `title`. */
  kind: "label" | "title";
  /** How many requests. */
  requests: number;
  /** Tokens of the prompts. */
  prompt_tokens: number;
  /** Tokens of the answers. */
  completion_tokens: number;
  /** Both. */
  total_tokens: number;
  /** The cost in US dollars, when the model has a price. */
  cost?: number;
}

/** The report. */
export interface UsageReport {
  /** One row per day, model and kind, oldest first. */
  rows: UsageRow[];
  /** The sums of every row (`cost` when every row has one). */
  totals: Omit<UsageRow, "day" | "model" | "kind">;
}

/**
 * Builds the report; see the module doc.
 *
 * @param session Where the flow runs (jpt's data directory, the prices).
 * @param since The first day (`YYYY-MM-DD`), if any.
 * @returns The rows and the totals.
 */
export async function usageReport(
  session: Session,
  since?: string,
): Promise<UsageReport> {
  const services = new Services(session);
  const config = (await services.config(await optionalWorkspace(session)))
    .values;
  const rows = new Map<string, UsageRow>();
  for (const record of await readUsage(session.env, since)) {
    const day = record.time.slice(0, 10);
    const key = `${day} ${record.model} ${record.kind}`;
    const row = rows.get(key) ?? {
      day,
      model: record.model,
      kind: record.kind,
      requests: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
    };
    row.requests++;
    row.prompt_tokens += record.prompt_tokens;
    row.completion_tokens += record.completion_tokens;
    row.total_tokens += record.total_tokens;
    rows.set(key, row);
  }
  const sorted = [...rows.values()].sort((a, b) =>
    a.day < b.day ? -1 : a.day > b.day ? 1 : a.model < b.model ? -1 : 1
  );
  for (const row of sorted) {
    const price = priceOf(config, row.model);
    if (price !== undefined) {
      row.cost = (row.prompt_tokens * price.input +
        row.completion_tokens * price.output) / 1_000_000;
    }
  }
  const totals: UsageReport["totals"] = {
    requests: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
  };
  for (const row of sorted) {
    totals.requests += row.requests;
    totals.prompt_tokens += row.prompt_tokens;
    totals.completion_tokens += row.completion_tokens;
    totals.total_tokens += row.total_tokens;
  }
  if (sorted.length > 0 && sorted.every((row) => row.cost !== undefined)) {
    totals.cost = sorted.reduce((sum, row) => sum + row.cost!, 0);
  }
  return { rows: sorted, totals };
}

/** A model's price per million input and output tokens, when configured. */
function priceOf(
  config: Parameters<typeof getPath>[0],
  model: string,
): { input: number; output: number } | undefined {
  const price = getPath(config, ["usage", "prices", model]) as
    | { input?: unknown; output?: unknown }
    | undefined;
  const input = price?.input;
  const output = price?.output;
  return typeof input === "number" && typeof output === "number"
    ? { input, output }
    : undefined;
}
