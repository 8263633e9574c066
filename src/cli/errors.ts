/** A mistake in how the command was called; exits with code 2. */
export class UsageError extends Error {
  /**
   * @param message What is wrong with the call.
   */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Exit codes of the CLI. */
export const ExitCode = {
  /** Success. */
  ok: 0,
  /** The command failed. */
  failure: 1,
  /** The command was called wrongly. */
  usage: 2,
  /** Interrupted by Ctrl-C. */
  interrupted: 130,
} as const;
