/**
 * Pseudo-terminals for tests, through util-linux `script` (absent on macOS
 * and Windows runners, where those tests are skipped with one line).
 *
 * @module
 */

/** Whether util-linux `script` (with `-q -e -c`) can run here. */
export const HAS_SCRIPT: boolean = (() => {
  try {
    const output = new Deno.Command("script", {
      args: ["--version"],
      stdout: "piped",
      stderr: "null",
    }).outputSync();
    return output.success &&
      new TextDecoder().decode(output.stdout).includes("util-linux");
  } catch {
    return false;
  }
})();

if (!HAS_SCRIPT) {
  console.log(
    "SKIP: util-linux `script` not found; tests through a pseudo-terminal are skipped",
  );
}
