/**
 * One cold load, as `jpt` does it in a fresh process: reads a file, then
 * times either a bare `JSON.parse` of its text or `ConversationStream.parse`,
 * and prints the milliseconds. bench.ts runs it alternately.
 *
 * Usage: `deno run --allow-read bench/load_once.ts FILE json|load`
 *
 * @module
 */

import { ConversationStream } from "../src/conversation/stream.ts";

const [file, what] = Deno.args;
const bytes = await Deno.readFile(file!);
const decoder = new TextDecoder();
const start = performance.now();
if (what === "json") JSON.parse(decoder.decode(bytes));
else ConversationStream.parse(bytes);
console.log(performance.now() - start);
