/**
 * A deadline for the wait before a model's answer starts, without the
 * global `setTimeout`: Deno loads its Node-compatible timers on the first
 * `setTimeout` of a process (4–8 ms), and before a request leaves that
 * time is the request's. `AbortSignal.timeout` uses Deno's own timers; its
 * timer keeps the process alive only while the deadline is armed (once
 * cancelled it waits out its time unreferenced: a few hundred bytes).
 *
 * @module
 */

/** Aborts {@linkcode Deadline.signal} after a time, unless cancelled first. */
export class Deadline {
  /** Aborted when the time passes before {@linkcode Deadline.cancel}. */
  readonly signal: AbortSignal;
  readonly #timeout: AbortSignal;
  readonly #expire: () => void;

  /**
   * Arms the deadline.
   *
   * @param ms The time allowed, in milliseconds.
   */
  constructor(ms: number) {
    const gate = new AbortController();
    this.signal = gate.signal;
    this.#timeout = AbortSignal.timeout(ms);
    this.#expire = () => gate.abort(this.#timeout.reason);
    this.#timeout.addEventListener("abort", this.#expire, { once: true });
  }

  /** Disarms it: the signal is never aborted, and the process may exit. */
  cancel(): void {
    this.#timeout.removeEventListener("abort", this.#expire);
  }
}
