/**
 * `jpt serve` in a real browser (Debian's Chromium driven by puppeteer-core)
 * and over raw HTTP: the list, the outline bringing a turn into view, search
 * ranked as `jpt find`, a summary written by another process appearing on an
 * open page, hostile text shown as text, keyboard navigation, and the token
 * and `Host` checks. Without Chromium the browser tests are skipped with one
 * line (CI installs it).
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ConversationStream } from "../../src/conversation/stream.ts";
import { runJpt, spawnJpt } from "../support/cli.ts";
import {
  simpleTurns,
  type TempWorkspace,
  tempWorkspace,
  writeConversation,
} from "../support/workspace.ts";

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(
  (path) => {
    try {
      return Deno.statSync(path).isFile;
    } catch {
      return false;
    }
  },
);
if (CHROMIUM === undefined) {
  console.log(
    "SKIP: no Chromium here; the jpt serve browser tests are skipped",
  );
}

/** A workspace of two conversations, the viewer serving it, its address. */
async function served(): Promise<
  {
    ws: TempWorkspace;
    url: string;
    dir: string;
    stop: () => Promise<void>;
  }
> {
  const ws = await tempWorkspace();
  const stream = ConversationStream.parse(simpleTurns("s", 30));
  stream.labelTurn(0, undefined, "Chose the retry backoff");
  stream.labelTurn(12, undefined, "Picked RwLock over Mutex for the cache");
  stream.labelTurn(20, undefined, "<img src=x onerror=alert(1)>");
  const entries = JSON.parse(new TextDecoder().decode(stream.serialize()));
  const reply = entries.findLast((e: { type: string }) =>
    e.type === "chat_response"
  );
  reply.message = "Here: <script>alert(2)</script> and `code`";
  const dir = await writeConversation(
    ws.conversations,
    "17800000000",
    new TextEncoder().encode(JSON.stringify(entries, null, 2) + "\n"),
    JSON.stringify(
      {
        title: "Caching design",
        last_activated_at: "2026-01-02 00:00:00.0",
      },
      null,
      2,
    ) + "\n",
  );
  await writeConversation(
    ws.conversations,
    "17800000001",
    simpleTurns("o", 2),
    JSON.stringify(
      {
        title: "Other work",
        last_activated_at: "2026-01-01 00:00:00.0",
      },
      null,
      2,
    ) + "\n",
  );
  await writeConversation(
    join(ws.conversations, ".archive"),
    "17800000002",
    simpleTurns("a", 1),
    JSON.stringify(
      {
        title: "Old plans",
        last_activated_at: "2025-01-01 00:00:00.0",
        archived_at: "2025-02-01 00:00:00.0",
      },
      null,
      2,
    ) + "\n",
  );
  const child = spawnJpt(["serve"], { cwd: ws.root, env: ws.env });
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  while (!printed.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`jpt serve ended: ${printed}`);
    printed += value;
  }
  reader.releaseLock();
  const stop = async () => {
    child.kill("SIGINT");
    await child.status;
    await child.stdout.cancel().catch(() => {});
    await child.stderr.cancel().catch(() => {});
  };
  return { ws, url: printed.trim(), dir, stop };
}

/** One raw HTTP/1.1 request, so the `Host` header is the test's to choose. */
async function rawGet(url: string, host: string): Promise<number> {
  const { hostname, port, pathname } = new URL(url);
  const connection = await Deno.connect({ hostname, port: Number(port) });
  try {
    await connection.write(
      new TextEncoder().encode(
        `GET ${pathname} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      ),
    );
    const buffer = new Uint8Array(256);
    const read = await connection.read(buffer);
    const head = new TextDecoder().decode(buffer.subarray(0, read ?? 0));
    return Number(head.split(" ")[1]);
  } finally {
    connection.close();
  }
}

Deno.test("jpt serve refuses a request without its token or naming another host, and answers 200 with the outline in the HTML", async () => {
  const { ws, url, stop } = await served();
  await using _ = ws;
  try {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/$/);
    const origin = new URL(url).origin;
    const without = await fetch(`${origin}/`);
    assert.equal(without.status, 403);
    await without.body?.cancel();
    const wrong = await fetch(`${origin}/0123456789abcdef0123456789abcdef/`);
    assert.equal(wrong.status, 403);
    await wrong.body?.cancel();
    const { port } = new URL(url);
    assert.equal(await rawGet(url, `evil.example:${port}`), 403);
    assert.equal(await rawGet(url, `127.0.0.1:${port}`), 200);
    const page = await fetch(`${url}c/17800000000`);
    assert.equal(page.status, 200);
    assert.match(
      page.headers.get("content-security-policy") ?? "",
      /script-src 'self'/,
    );
    assert.equal(page.headers.get("access-control-allow-origin"), null);
    const html = await page.text();
    assert.match(html, /Picked RwLock over Mutex for the cache/);
    assert.ok(!html.includes("<img src=x"), "escaped");
    assert.ok(!html.includes("<script>alert"), "escaped");
    const post = await fetch(url, { method: "POST" });
    assert.equal(post.status, 405);
    await post.body?.cancel();
  } finally {
    await stop();
  }
});

Deno.test("jpt serve reads each page in a process of its own: a saved file shows at once, a page past the end lists every turn, the reading process prints the page and the summaries", async () => {
  const { ws, url, dir, stop } = await served();
  await using _ = ws;
  try {
    const first = await (await fetch(`${url}c/17800000000`)).text();
    assert.match(first, /Picked RwLock over Mutex for the cache/);
    // jp saves: a new file with another turn summary in its place.
    const saved = ConversationStream.parse(
      await Deno.readFile(join(dir, "events.json")),
    );
    saved.labelTurn(5, undefined, "Dropped the second cache layer");
    await Deno.writeFile(join(dir, "events.json.tmp"), saved.serialize());
    await Deno.rename(join(dir, "events.json.tmp"), join(dir, "events.json"));
    const again = await (await fetch(`${url}c/17800000000`)).text();
    assert.match(again, /Dropped the second cache layer/);
    assert.ok(!first.includes("Dropped the second cache layer"));
    // Many pages at once take turns for the reading processes: all answer.
    const together = await Promise.all(
      Array.from(
        { length: 5 },
        (_, n) =>
          fetch(`${url}c/17800000000${n % 2 === 0 ? "" : "/summaries.json"}`)
            .then(async (response) => [response.status, await response.text()]),
      ),
    );
    for (const [status, body] of together) {
      assert.equal(status, 200);
      assert.match(String(body), /Dropped the second cache layer/);
    }
    // A page past the end reads no turn; its outline lists every turn.
    const past = await (await fetch(`${url}c/17800000000?page=3`)).text();
    assert.ok(!past.includes('class="turn"'));
    assert.equal(past.match(/<li><a /g)?.length, 30);

    // What a reading process prints: the page as the server sends it, the
    // summaries as JSON; an unknown conversation is an error, no output.
    const pageOut = await runJpt(
      ["serve", "--page-of", "17800000000", "--page", "0"],
      { cwd: ws.root, env: ws.env },
    );
    assert.equal(pageOut.code, 0, pageOut.stderr);
    assert.equal(pageOut.stdout, again);
    const summaries = await runJpt(["serve", "--summaries-of", "17800000000"], {
      cwd: ws.root,
      env: ws.env,
    });
    assert.equal(summaries.code, 0, summaries.stderr);
    const data = JSON.parse(summaries.stdout);
    assert.equal(data.length, 30);
    assert.equal(data[5].summary, "Dropped the second cache layer");
    assert.equal(data[12].anchor, "turn-st12");
    const missing = await runJpt(["serve", "--page-of", "17899999999"], {
      cwd: ws.root,
      env: ws.env,
    });
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, "");
    assert.match(missing.stderr, /No conversation jp-c17899999999/);
    // A file that does not parse: its error, with the file and the byte.
    const broken = await writeConversation(
      ws.conversations,
      "17800000005",
      new TextEncoder().encode('[\n  {"type": "turn_start",\n'),
    );
    const refused = await fetch(`${url}c/17800000005`);
    assert.equal(refused.status, 404);
    const said = await refused.text();
    assert.match(said, /events\.json/);
    assert.match(said, /byte \d+/);
    assert.ok(said.includes(broken), said);
    // A search's words on standard input, never on a command line.
    const searched = await runJpt(["serve", "--search"], {
      cwd: ws.root,
      env: ws.env,
      stdin: "RwLock over Mutex",
    });
    assert.equal(searched.code, 0, searched.stderr);
    assert.deepEqual(
      JSON.parse(searched.stdout).map((turn: { index: number }) => turn.index),
      [12],
    );
    const help = await runJpt(["serve", "--help"], { cwd: ws.root });
    assert.ok(!help.stdout.includes("--page-of"), "not for people");
  } finally {
    await stop();
  }
});

Deno.test({
  name:
    "jpt serve in Chromium: list, outline, search, live summary, hostile text as text, keyboard",
  ignore: CHROMIUM === undefined,
  async fn() {
    const { default: puppeteer } = await import("puppeteer-core");
    const { ws, url, dir, stop } = await served();
    await using _ = ws;
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM!,
      args: ["--no-sandbox", "--headless=new"],
    });
    try {
      const page = await browser.newPage();
      const dialogs: string[] = [];
      page.on("dialog", async (dialog) => {
        dialogs.push(dialog.message());
        await dialog.dismiss();
      });
      // The list shows the titles.
      await page.goto(url);
      const titles = await page.$$eval(
        "tbody td:first-child a",
        (links) => links.map((link) => link.textContent),
      );
      assert.deepEqual(titles.sort(), [
        "Caching design",
        "Old plans",
        "Other work",
      ]);
      assert.equal(
        await page.$eval(
          'tbody tr:has(a[href="c/17800000002"]) .tag',
          (tag) => tag.textContent,
        ),
        "archived",
      );
      await page.goto(`${url}c/17800000002`);
      assert.equal(await page.$eval("h1", (h) => h.textContent), "Old plans");
      // The outline brings a turn into view.
      await page.goto(`${url}c/17800000000`);
      await page.click('nav.outline a[data-turn="turn-st12"]');
      // Browser-side expressions are strings: the test is type-checked
      // without the DOM's types.
      await page.waitForFunction(
        `(() => { const top = document.getElementById("turn-st12").getBoundingClientRect().top; return top >= 0 && top < innerHeight / 2; })()`,
      );
      // Keyboard: j moves to the next turn.
      await page.keyboard.press("j");
      await page.waitForFunction(`location.hash === "#turn-st13"`);
      // Hostile text is shown as text: no dialog, no element.
      const hostile = await page.$eval(
        'nav.outline a[data-turn="turn-st20"] .summary',
        (element) => element.textContent,
      );
      assert.equal(hostile, "<img src=x onerror=alert(1)>");
      assert.equal(await page.$("article img"), null);
      assert.equal(await page.$("article script"), null);
      assert.match(
        await page.$eval("article", (element) => element.textContent ?? ""),
        /<script>alert\(2\)<\/script>/,
      );
      // A summary written by another process appears on the open page.
      const events = join(dir, "events.json");
      const stream = ConversationStream.parse(await Deno.readFile(events));
      stream.labelTurn(5, undefined, "Measured the cold start");
      await Deno.writeFile(events, stream.serialize());
      await page.waitForFunction(
        `document.querySelector('nav.outline a[data-turn="turn-st5"] .summary')?.textContent === "Measured the cold start"`,
        { timeout: 10_000 },
      );
      // Search ranks the summary first; its link opens the turn.
      await page.goto(`${url}search?q=${encodeURIComponent("RwLock")}`);
      const first = await page.$eval(
        "ol.results li a",
        (link) => link.getAttribute("href"),
      );
      assert.equal(first, "c/17800000000#turn-st12");
      await Promise.all([
        page.waitForNavigation(),
        page.click("ol.results li a"),
      ]);
      assert.match(page.url(), /\/c\/17800000000#turn-st12$/);
      assert.deepEqual(dialogs, []);
    } finally {
      await browser.close();
      await stop();
    }
  },
});
