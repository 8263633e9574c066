/**
 * The token usage a provider reports with each completion (`usage` in an
 * OpenAI-compatible response), read defensively: a provider that reports
 * none, or something else, yields nothing.
 *
 * @module
 */

/** Tokens one request used, as the provider reported them. */
export interface TokenUsage {
  /** Tokens of the prompt. */
  prompt_tokens: number;
  /** Tokens of the answer. */
  completion_tokens: number;
  /** Both (as reported; the sum when not reported). */
  total_tokens: number;
}

/** Told of the usage of each request that reports one. */
export type UsageSink = (usage: TokenUsage) => void;

/**
 * Reads a response's `usage`.
 *
 * @param value The `usage` member of a response body.
 * @returns The usage, or `undefined` when the provider reported none.
 */
export function readTokenUsage(value: unknown): TokenUsage | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const usage = value as Record<string, unknown>;
  const count = (key: string) => {
    const number = usage[key];
    return typeof number === "number" && Number.isSafeInteger(number) &&
        number >= 0
      ? number
      : undefined;
  };
  const prompt = count("prompt_tokens");
  const completion = count("completion_tokens");
  if (prompt === undefined && completion === undefined) return undefined;
  return {
    prompt_tokens: prompt ?? 0,
    completion_tokens: completion ?? 0,
    total_tokens: count("total_tokens") ?? (prompt ?? 0) + (completion ?? 0),
  };
}
