/**
 * At most a given number of pieces of work at once; the others wait their
 * turn, first come first served (`jpt serve` runs at most a few reading
 * processes at a time, however many pages ask at once).
 *
 * @module
 */

/** A bound on work in progress. */
export class Slots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  /**
   * Creates the slots.
   *
   * @param size How many pieces of work may run at once (at least 1).
   */
  constructor(size: number) {
    this.#free = Math.max(1, size);
  }

  /**
   * Waits for a free slot.
   *
   * @returns Gives the slot back (once; later calls do nothing).
   */
  async take(): Promise<() => void> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.#waiting.shift();
      if (next === undefined) this.#free++;
      else next();
    };
  }
}
