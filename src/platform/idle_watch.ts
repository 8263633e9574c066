/**
 * A stream's idle timeout without the global `setTimeout`: the first
 * `setTimeout` of a process loads Deno's Node-compatible timers (4–8 ms),
 * and a reply's idle timer is set when its first piece arrives, so that time
 * held back the first piece. A {@linkcode Deadline} cannot be moved, so the
 * watch keeps one at a time: when it passes, the time since the last
 * {@linkcode IdleWatch.touch} decides whether the stream went idle or a new
 * deadline covers the rest.
 *
 * @module
 */

import { Deadline } from "./deadline.ts";

/** Calls `onIdle` once `ms` pass without a {@linkcode IdleWatch.touch}. */
export class IdleWatch {
  readonly #ms: number;
  readonly #onIdle: () => void;
  #last = performance.now();
  #deadline: Deadline;
  #stopped = false;

  /**
   * Starts watching: the time runs from now.
   *
   * @param ms The longest silence allowed, in milliseconds.
   * @param onIdle Called once, when the silence lasted `ms`.
   */
  constructor(ms: number, onIdle: () => void) {
    this.#ms = ms;
    this.#onIdle = onIdle;
    this.#deadline = this.#arm(ms);
  }

  /** Something arrived: the silence starts again from now. */
  touch(): void {
    this.#last = performance.now();
  }

  /** Stops watching: `onIdle` is never called, and the process may exit. */
  stop(): void {
    this.#stopped = true;
    this.#deadline.cancel();
  }

  #arm(ms: number): Deadline {
    const deadline = new Deadline(ms);
    deadline.signal.addEventListener("abort", () => {
      if (this.#stopped) return;
      const silent = performance.now() - this.#last;
      if (silent >= this.#ms) {
        this.#stopped = true;
        this.#onIdle();
      } else {
        this.#deadline = this.#arm(this.#ms - silent);
      }
    }, { once: true });
    return deadline;
  }
}
