/**
 * The one error model of jpt: every error a user can cause or meet (a missing
 * workspace, a held lock, a bad config value, a model that cannot be reached)
 * is a {@linkcode JptError} that carries the exit code it ends the command
 * with and, optionally, the error that caused it. Anything else that reaches
 * the command line is a bug.
 *
 * @module
 */

/** Exit codes of the CLI. */
export const ExitCode: {
  readonly ok: 0;
  readonly failure: 1;
  readonly usage: 2;
  readonly interrupted: 130;
} = {
  /** Success. */
  ok: 0,
  /** The command failed. */
  failure: 1,
  /** The command was called wrongly. */
  usage: 2,
  /** Interrupted by Ctrl-C. */
  interrupted: 130,
} as const;

/** One of the exit codes: 0 success, 1 failure, 2 usage, 130 Ctrl-C. */
export type ExitCodeValue = 0 | 1 | 2 | 130;

/** Options of a {@linkcode JptError}. */
export interface JptErrorOptions {
  /** The exit code (default 1). */
  exitCode?: ExitCodeValue;
  /** The error behind this one, shown with `--verbose`. */
  cause?: unknown;
}

/**
 * An error that is the user's situation, not a bug: printed as one line,
 * ending the command with its exit code.
 *
 * @example A user-facing error with a cause
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExitCode, JptError } from "@jpt/cli/unstable";
 * const error = new JptError("Cannot read config", {
 *   cause: new Error("permission denied"),
 * });
 * assert.equal(error.exitCode, ExitCode.failure);
 * assert.equal((error.cause as Error).message, "permission denied");
 * ```
 */
export class JptError extends Error {
  /** The exit code the command ends with. */
  readonly exitCode: ExitCodeValue;

  /**
   * Creates the error.
   *
   * @param message What failed, and how to fix it when that is known.
   * @param options The exit code and the cause.
   */
  constructor(message: string, options: JptErrorOptions = {}) {
    super(
      message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = new.target.name;
    this.exitCode = options.exitCode ?? ExitCode.failure;
  }
}

/**
 * A mistake in how the command was called (exit code 2).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExitCode, UsageError } from "@jpt/cli/unstable";
 * assert.equal(new UsageError("No message").exitCode, ExitCode.usage);
 * ```
 */
export class UsageError extends JptError {
  /**
   * Creates the error.
   *
   * @param message What is wrong with the call.
   * @param options The cause, if any.
   */
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { ...options, exitCode: ExitCode.usage });
  }
}

/**
 * The messages of an error and of every `cause` behind it, outermost first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { causeChain } from "@jpt/cli/unstable";
 * const error = new Error("outer", { cause: new Error("inner") });
 * assert.deepEqual(causeChain(error), ["outer", "inner"]);
 * ```
 *
 * @param error Any thrown value.
 * @returns One message per link of the chain (at most 16, cycles cut).
 */
export function causeChain(error: unknown): string[] {
  const messages: string[] = [];
  const seen = new Set<unknown>();
  let current = error;
  while (current !== undefined && !seen.has(current) && messages.length < 16) {
    seen.add(current);
    messages.push(current instanceof Error ? current.message : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return messages;
}
