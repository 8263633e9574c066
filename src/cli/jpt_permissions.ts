/**
 * The permissions jpt runs with, everywhere it starts itself or is started
 * by a launcher it writes: `deno task install`'s shim, the plugin launchers
 * and the detached worker a query hands its turn summaries to. Not `-A`: jpt needs
 * no foreign function interface and imports no code from the network.
 *
 * @module
 */

/** `deno run` flags granting what jpt needs: files, environment, network, processes, system info. */
export const JPT_PERMISSIONS: readonly string[] = [
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-net",
  "--allow-run",
  "--allow-sys",
];
