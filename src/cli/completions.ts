/**
 * Shell completion scripts generated from the command tree itself, so they
 * never drift from the real commands and options.
 *
 * @module
 */

import { Argument, type CommandUnknownOpts } from "./command.ts";
import { ExitCode } from "../errors/jpt_error.ts";
import type { CommandDeps } from "./command_deps.ts";

/** The shells jpt writes completions for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;

interface CommandInfo {
  /** The command path after `jpt`, e.g. `conversation ls`. */
  path: string;
  description: string;
  options: Array<{ flags: string[]; description: string }>;
  subcommands: string[];
  /** Whether its argument names a conversation (completed with ids). */
  takesConversation: boolean;
}

/**
 * Adds `completions <shell>` to the program.
 *
 * @param program The root command (its tree is what the scripts complete).
 * @param deps See {@linkcode CommandDeps}.
 */
export function addCompletionsCommand(
  program: CommandUnknownOpts,
  deps: CommandDeps,
): void {
  program.command("completions")
    .description("print a shell completion script")
    .addArgument(new Argument("<shell>", "the shell").choices(SHELLS))
    .addHelpText(
      "after",
      "\nbash: source <(jpt completions bash)\nzsh:  source <(jpt completions zsh)\nfish: jpt completions fish | source\n",
    )
    .action((shell) => {
      const commands = describe(program, "");
      deps.context().io.out(
        shell === "bash"
          ? bash(commands)
          : shell === "zsh"
          ? zsh(commands)
          : fish(commands),
      );
      deps.setExitCode(ExitCode.ok);
    });
}

function describe(command: CommandUnknownOpts, path: string): CommandInfo[] {
  const info: CommandInfo = {
    path,
    description: command.description(),
    options: [
      ...command.options.filter((option) => !option.hidden).map((option) => ({
        flags: [option.short, option.long].filter((flag): flag is string =>
          flag !== undefined
        ),
        description: option.description,
      })),
      { flags: ["-h", "--help"], description: "show help" },
    ],
    // Aliases complete like the command they stand for (jpt q, jpt c ls).
    subcommands: command.commands.flatMap((
      sub,
    ) => [sub.name(), ...sub.aliases()]),
    takesConversation: command.registeredArguments.some((argument) =>
      /^conversations?$/.test(argument.name())
    ),
  };
  return [
    info,
    ...command.commands.flatMap((sub) =>
      [sub.name(), ...sub.aliases()].flatMap((name) =>
        describe(sub, path === "" ? name : `${path} ${name}`)
      )
    ),
  ];
}

/** Shell code that prints the workspace's conversation ids (`jp-c…`). */
const LIST_IDS =
  `jpt conversation ls --json 2>/dev/null | sed -n 's/.*"id": "\\(jp-c[0-9]*\\)".*/\\1/p'`;

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

function bash(commands: CommandInfo[]): string {
  const cases = commands.map((command) => {
    const words = [
      ...command.subcommands,
      ...command.options.flatMap((option) => option.flags),
    ].join(" ");
    const ids = command.takesConversation ? '; words="$words $(_jpt_ids)"' : "";
    return `    ${quote(command.path)}) words=${quote(words)}${ids} ;;`;
  }).join("\n");
  return `# bash completion for jpt; load with: source <(jpt completions bash)
_jpt() {
  local cur prev path="" word i words
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  if [[ "$prev" == "--id" ]]; then
    COMPREPLY=($(compgen -W "$(_jpt_ids)" -- "$cur"))
    return
  fi
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && continue
    case " $(_jpt_subcommands "$path") " in
      *" $word "*) path="\${path:+$path }$word" ;;
    esac
  done
  case "$path" in
${cases}
    *) words="" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
_jpt_subcommands() {
  case "$1" in
${
    commands.map((command) =>
      `    ${quote(command.path)}) echo ${
        quote(command.subcommands.join(" "))
      } ;;`
    ).join("\n")
  }
  esac
}
_jpt_ids() {
  ${LIST_IDS}
}
complete -o default -F _jpt jpt
`;
}

function zsh(commands: CommandInfo[]): string {
  const cases = commands.map((command) => {
    const entries = [
      ...commands.filter((sub) =>
        sub.path !== "" && parentOf(sub.path) === command.path
      )
        .map((sub) =>
          `${sub.path.split(" ").at(-1)}:${
            sub.description.replaceAll(":", "\\:")
          }`
        ),
      ...command.options.flatMap((option) =>
        option.flags.map((flag) =>
          `${flag.replaceAll(":", "\\:")}:${
            option.description.replaceAll(":", "\\:")
          }`
        )
      ),
    ];
    return `    ${quote(command.path)}) entries=(${
      entries.map(quote).join(" ")
    }) ;;`;
  }).join("\n");
  return `#compdef jpt
# zsh completion for jpt; load with: source <(jpt completions zsh)
_jpt() {
  local path="" word
  local -a entries subcommands
  for word in \${words[2,CURRENT-1]}; do
    [[ "$word" == -* ]] && continue
    case "$path" in
${
    commands.map((command) =>
      `      ${quote(command.path)}) subcommands=(${
        command.subcommands.map(quote).join(" ")
      }) ;;`
    ).join("\n")
  }
    esac
    (( \${subcommands[(Ie)$word]} )) && path="\${path:+$path }$word"
  done
  case "$path" in
${cases}
  esac
  if [[ "\${words[CURRENT-1]}" == "--id" ]]; then
    compadd -- $(${LIST_IDS})
    return
  fi
  case "$path" in
${
    commands.filter((command) => command.takesConversation).map((command) =>
      `    ${quote(command.path)}) compadd -- $(${LIST_IDS}) ;;`
    ).join("\n")
  }
  esac
  _describe 'jpt' entries
}
compdef _jpt jpt
`;
}

function fish(commands: CommandInfo[]): string {
  const lines = [
    "# fish completion for jpt; load with: jpt completions fish | source",
    "complete -c jpt -f",
  ];
  for (const command of commands) {
    const condition = command.path === ""
      ? "__fish_use_subcommand"
      : `__fish_seen_subcommand_from ${command.path.split(" ").at(-1)}`;
    for (
      const sub of commands.filter((other) =>
        other.path !== "" && parentOf(other.path) === command.path
      )
    ) {
      lines.push(
        `complete -c jpt -n ${quote(condition)} -a ${
          quote(sub.path.split(" ").at(-1)!)
        } -d ${quote(sub.description)}`,
      );
    }
    for (const option of command.options) {
      const parts = option.flags.map((flag) =>
        flag.startsWith("--") ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`
      );
      lines.push(
        `complete -c jpt -n ${quote(condition)} ${parts.join(" ")} -d ${
          quote(option.description)
        }`,
      );
    }
  }
  const ids = `(${LIST_IDS})`;
  lines.push(
    `complete -c jpt -n ${quote("__fish_seen_argument -l id")} -a ${
      quote(ids)
    }`,
  );
  for (const command of commands.filter((c) => c.takesConversation)) {
    lines.push(
      `complete -c jpt -n ${
        quote(`__fish_seen_subcommand_from ${command.path.split(" ").at(-1)}`)
      } -a ${quote(ids)}`,
    );
  }
  return lines.join("\n") + "\n";
}

function parentOf(path: string): string {
  const space = path.lastIndexOf(" ");
  return space < 0 ? "" : path.slice(0, space);
}
