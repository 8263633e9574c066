/**
 * Screenshots of `jpt serve` for the README (`docs/serve-list.png`,
 * `docs/serve-conversation.png`): the viewer on the sample workspace in
 * testdata/, in the same Chromium the browser tests drive
 * (`deno task screenshots`).
 *
 * @module
 */

import { join } from "node:path";
import puppeteer from "puppeteer-core";
import { firstLine } from "../bench/run_jpt.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const CHROMIUM = Deno.env.get("CHROMIUM") ?? "/usr/bin/chromium";

const data = await Deno.makeTempDir({ prefix: "jpt-screenshots-" });
const server = new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", "--quiet", join(ROOT, "main.ts"), "serve"],
  cwd: join(ROOT, "testdata", "workspace"),
  env: {
    JPT_DATA_DIR: data,
    JP_USER_DATA_DIR: join(data, "jp"),
    NO_COLOR: "1",
  },
  stdout: "piped",
  stderr: "inherit",
}).spawn();
const url = await firstLine(server);
const browser = await puppeteer.launch({
  executablePath: CHROMIUM,
  args: ["--no-sandbox", "--headless=new"],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1100, height: 560 });
  await page.emulateMediaFeatures([
    { name: "prefers-color-scheme", value: "light" },
  ]);
  await page.goto(url);
  await page.screenshot({ path: join(ROOT, "docs", "serve-list.png") });
  await page.goto(`${url}c/17800000000#turn-p8q2r4b`);
  await page.screenshot({ path: join(ROOT, "docs", "serve-conversation.png") });
  console.log("docs/serve-list.png, docs/serve-conversation.png");
} finally {
  await browser.close();
  server.kill("SIGINT");
  await server.status;
  await Deno.remove(data, { recursive: true });
}
