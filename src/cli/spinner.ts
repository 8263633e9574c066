/**
 * A one-line spinner with elapsed time on standard error while jpt waits for
 * the model's first token. Terminal only; cleared before the reply starts.
 * Frames come from cli-spinners.
 *
 * @module
 */

import spinners from "cli-spinners";

/** A running spinner; stop it before anything else is printed on its line. */
export interface Spinner {
  /** Clears the line and stops (idempotent). */
  stop(): void;
}

/**
 * Starts a spinner (the caller shows it only on a terminal).
 *
 * @param write Writes to standard error.
 * @param label What is waited for (printable).
 * @param since When the wait began (`performance.now()`): the elapsed time counts from there.
 * @returns The spinner.
 */
export function startSpinner(
  write: (text: string) => void,
  label: string,
  since: number = performance.now(),
): Spinner {
  const { frames, interval } = spinners.dots;
  let frame = 0;
  const draw = () => {
    const seconds = ((performance.now() - since) / 1000).toFixed(1);
    write(`\r\u001b[K${frames[frame++ % frames.length]} ${label} ${seconds}s`);
  };
  draw();
  const timer = setInterval(draw, interval);
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      write("\r\u001b[K");
    },
  };
}
