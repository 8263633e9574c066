/**
 * A plan or event file the user edited that cannot be applied: a user error
 * (exit 1, one line naming the file or plan line), never a bug.
 *
 * @module
 */

import { JptError } from "../errors/jpt_error.ts";

/** The edited plan or one of its event files is malformed. */
export class PlanError extends JptError {
  /**
   * @param message Where (plan line or file) and what is wrong.
   * @param options The cause, if any.
   */
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
  }
}
