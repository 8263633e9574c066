/**
 * jp's picker on a terminal: a list with type-to-filter (Inquirer's search
 * prompt, as jp uses inquire's `Select`), drawn on standard error so
 * standard output keeps only what the command prints. Ctrl-C ends the
 * command as an interruption.
 *
 * @module
 */

import search from "@inquirer/search";
import process from "node:process";
import type { PickRequest } from "../app/pick.ts";
import { ExitCode, JptError } from "../errors/jpt_error.ts";
import { sanitizeLine } from "./output.ts";

/** How many choices show at once. */
const PAGE_SIZE = 12;

/**
 * Asks the user to pick one choice.
 *
 * @param request What to show.
 * @returns The chosen value.
 * @throws {JptError} With exit code 130 when the user gives up.
 */
export async function pickOnTerminal(request: PickRequest): Promise<string> {
  const choices = request.choices.map((choice) => ({
    value: choice.value,
    name: sanitizeLine(choice.name),
  }));
  try {
    return await search({
      message: request.message,
      pageSize: PAGE_SIZE,
      ...(request.initialFilter === undefined
        ? {}
        : { initialValue: request.initialFilter }),
      source: (term) => {
        const words = (term ?? "").toLocaleLowerCase().split(/\s+/)
          .filter((word) => word !== "");
        return choices.filter((choice) => {
          const name = choice.name.toLocaleLowerCase();
          return words.every((word) => name.includes(word));
        });
      },
    }, { output: process.stderr });
  } catch (error) {
    if (error instanceof Error && error.name === "ExitPromptError") {
      throw new JptError("Nothing picked", { exitCode: ExitCode.interrupted });
    }
    throw error;
  }
}
