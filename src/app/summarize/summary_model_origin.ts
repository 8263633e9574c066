/**
 * Where a conversation's summary model came from, for messages that name
 * the fix when it cannot work: `conversation.turn_summary.generate.model`
 * (chosen for summaries), or inherited from the title or assistant model,
 * with the layer that set it (often a conversation's stored config).
 *
 * @module
 */

import type { LoadedConfig } from "../../config/load_config.ts";
import type { ResolvedSummaryModel } from "../../summary/summary_model.ts";

/** A summary model and where it was set. */
export interface SummaryModelOrigin {
  /** `provider/name`. */
  model: string;
  /** The config key it came from, and the layer that set it when known. */
  from: string;
}

/**
 * The summary model of a conversation and where it was set.
 *
 * @param resolved The resolved summary model.
 * @param config The effective config it was resolved from (with origins).
 * @returns The model and its origin.
 */
export function summaryModelOrigin(
  resolved: ResolvedSummaryModel,
  config: LoadedConfig,
): SummaryModelOrigin {
  const source = resolved.model.source;
  const origin = [...config.origins].find(([key]) =>
    key === `${source}.id` || key.startsWith(`${source}.id.`)
  )?.[1];
  return {
    model: `${resolved.model.id.provider}/${resolved.model.id.name}`,
    from: origin === undefined ? source : `${source}, set by ${origin}`,
  };
}

/**
 * Whether the model was inherited rather than chosen for summaries.
 *
 * @param origin The model's origin.
 * @returns `true` when it came from the title or assistant model.
 */
export function isInherited(origin: SummaryModelOrigin): boolean {
  return !origin.from.startsWith("conversation.turn_summary.generate.model");
}
