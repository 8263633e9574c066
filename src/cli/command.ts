/**
 * jpt's command-line parser: a small, dependency-free subset of commander's
 * fluent API (`command`, `option`, `argument`, `action`, …) with the same
 * parsing rules, messages and help layout jpt used to get from commander,
 * and option and argument types inferred from their flags as
 * `@commander-js/extra-typings` inferred them. Commander itself is loaded
 * through Node's CommonJS path, which cost most of jpt's start-up; this
 * module is plain ESM with no imports.
 *
 * Rules: options may come before or after arguments and belong to the
 * command they follow or any command above it (the command's own first);
 * `--flag=value`, `-n5` and `-n 5` work; `--` ends the options; `--no-x`
 * makes `x` default to true; `-h, --help` prints the help of the command
 * it follows; `-V, --version` the root's version.
 *
 * @module
 */

/** A usage error: the message, a suggestion, and exit code 2. */
export class CliUsageError extends Error {
  /**
   * @param message What was wrong (`unknown option '--x'`).
   * @param suggestion A line such as `(Did you mean --json?)`.
   */
  constructor(message: string, readonly suggestion?: string) {
    super(message);
    this.name = "CliUsageError";
  }
}

/** Help or the version was printed: the run ends with this code. */
export class CliExit extends Error {
  /** @param code The exit code. */
  constructor(readonly code: number) {
    super(`exit ${code}`);
    this.name = "CliExit";
  }
}

/** A value an option's parser refuses (the message names why). */
export class InvalidArgumentError extends Error {
  /** @param message Why the value is invalid. */
  constructor(message: string) {
    super(message);
    this.name = "InvalidArgumentError";
  }
}

type CamelCase<S extends string> = S extends `${infer H}-${infer T}`
  ? `${H}${Capitalize<CamelCase<T>>}`
  : S;
type LongFlag<F extends string> = F extends `${string}--${infer Rest}`
  ? Rest extends `${infer Name} ${string}` ? Name : Rest
  : never;
/** The key an option's value is stored under (`--dry-run` → `dryRun`, `--no-wait` → `wait`). */
export type OptionKey<F extends string> = LongFlag<F> extends `no-${infer N}`
  ? CamelCase<N>
  : CamelCase<LongFlag<F>>;
/**
 * The value an option's flags imply: `<v...>` a list, `<v>` text, `[n]` a
 * number's text or `true` when none follows, none a switch.
 */
export type FlagValue<F extends string> = F extends `${string}<${string}...>`
  ? string[]
  : F extends `${string}<${string}>` ? string
  : F extends `${string}[${string}]` ? string | true
  : true;
type ArgValue<S extends string> = S extends `<${string}...>` ? string[]
  : S extends `[${string}...]` ? string[]
  : S extends `<${string}>` ? string
  : string | undefined;

/** One option: its flags, description, value parser, default and choices. */
export class Option<F extends string = string, V = FlagValue<F>> {
  /** The flags as written (`-n, --last <n>`). */
  readonly flags: F;
  /** The help text. */
  readonly description: string;
  /** `-n`, if any. */
  readonly short: string | undefined;
  /** `--last`. */
  readonly long: string;
  /** The key in `opts`. */
  readonly key: string;
  /** Whether it takes a value. */
  readonly takesValue: boolean;
  /** Whether it collects a list (`<v...>`). */
  readonly variadic: boolean;
  /**
   * Whether its value is optional (`--last [n]`): taken inline
   * (`--last=2`) or when the next word is a whole number, else `true`.
   */
  readonly optionalValue: boolean;
  /** `--no-x`: the value is `false`, the default `true`. */
  readonly negate: boolean;
  /** Left out of help, completions and the man page. */
  hidden = false;
  /** Must be given (`requiredOption`). */
  mandatory = false;
  /** The value when the option is not given. */
  defaultValue: unknown;
  /** The values allowed. */
  allowed: readonly string[] | undefined;
  /** Turns the text given into the value. */
  parser: ((value: string, previous: unknown) => unknown) | undefined;

  /**
   * @param flags `-s, --long <value>`, `--switch`, `--no-switch`, `--list <v...>`.
   * @param description The help text.
   */
  constructor(flags: F, description = "") {
    this.flags = flags;
    this.description = description;
    const parts = flags.split(/[ ,|]+/).filter((part) => part !== "");
    this.short = parts.find((part) => /^-[^-]$/.test(part));
    this.long = parts.find((part) => part.startsWith("--")) ?? "";
    this.takesValue = /<[^>]+>/.test(flags);
    this.variadic = /\.\.\.>/.test(flags);
    this.optionalValue = !this.takesValue && /\[[^\]]+\]/.test(flags);
    this.negate = this.long.startsWith("--no-");
    const name = this.long.replace(/^--(no-)?/, "");
    this.key = name.replace(
      /-([a-z])/g,
      (_, letter: string) => letter.toUpperCase(),
    );
    this.defaultValue = this.negate ? true : undefined;
  }

  /**
   * Restricts the value to a list.
   *
   * @param values The values allowed.
   * @returns This option, typed with the choices.
   */
  choices<const C extends readonly string[]>(values: C): Option<F, C[number]> {
    this.allowed = values;
    return this as unknown as Option<F, C[number]>;
  }

  /**
   * Sets the value used when the option is not given.
   *
   * @param value The default.
   * @returns This option.
   */
  default(value: V): Option<F, V> {
    this.defaultValue = value;
    return this;
  }

  /**
   * Leaves the option out of help, completions and the man page.
   *
   * @returns This option.
   */
  hideHelp(): this {
    this.hidden = true;
    return this;
  }

  /** Whether `name` is one of its flags (`--json`, `-j`). */
  matches(name: string): boolean {
    return name === this.long || name === this.short;
  }
}

/** A positional argument: `<name>`, `[name]`, `<name...>`, `[name...]`. */
export class Argument<S extends string = string> {
  /** As written. */
  readonly spec: S;
  /** The help text. */
  readonly description: string;
  /** Whether it must be given. */
  readonly required: boolean;
  /** Whether it collects the rest. */
  readonly variadic: boolean;
  /** The values allowed. */
  allowed: readonly string[] | undefined;
  readonly #name: string;

  /**
   * @param spec `<name>` (required), `[name]` (optional), with `...` for a list.
   * @param description The help text.
   */
  constructor(spec: S, description = "") {
    this.spec = spec;
    this.description = description;
    this.required = spec.startsWith("<");
    this.variadic = spec.endsWith("...>") || spec.endsWith("...]");
    this.#name = spec.replace(/^[<[]|(\.\.\.)?[>\]]$/g, "");
  }

  /** The argument's name. */
  name(): string {
    return this.#name;
  }

  /**
   * Restricts the value to a list.
   *
   * @param values The values allowed.
   * @returns This argument.
   */
  choices(values: readonly string[]): this {
    this.allowed = values;
    return this;
  }
}

/** Where help and errors are written, and how help is laid out. */
export interface CommandOutput {
  /** Standard output (help asked for, the version). */
  writeOut(text: string): void;
  /** Standard error (errors, help after a missing command). */
  writeErr(text: string): void;
  /** The help text of a command. */
  formatHelp(command: Command<unknown[], Record<string, unknown>>): string;
}

type Action = (...args: unknown[]) => void | Promise<void>;

/** A command whose arguments and options are not known here (what `addXCommand` takes). */
export type CommandUnknownOpts = Command<unknown[], Record<string, unknown>>;
type AnyCommand = CommandUnknownOpts;

/**
 * A command: its options, arguments, subcommands and action. The type
 * parameters carry what the action receives.
 */
export class Command<
  Args extends unknown[] = [],
  Opts extends Record<string, unknown> = Record<never, never>,
> {
  /** The subcommands, in declaration order. */
  readonly commands: Command<unknown[], Record<string, unknown>>[] = [];
  /** The options, in declaration order. */
  readonly options: Option<string, unknown>[] = [];
  /** The positional arguments, in order. */
  readonly registeredArguments: Argument[] = [];
  /** The command above, if any. */
  parent: Command<unknown[], Record<string, unknown>> | undefined;
  /** Left out of help, completions and the man page. */
  hidden = false;
  /** Help text blocks placed after the generated help. */
  readonly helpAfter: string[] = [];
  /** Whether help lists the options of the commands above. */
  showGlobalOptions = false;
  #name: string;
  #description = "";
  #aliases: string[] = [];
  #action: Action | undefined;
  #version: string | undefined;
  #values: Record<string, unknown> = {};
  #output: CommandOutput | undefined;
  #helpAfterError: string | undefined;

  /** @param name The command's name. */
  constructor(name = "") {
    this.#name = name;
  }

  /** The command's name. */
  name(): string {
    return this.#name;
  }

  /**
   * Sets the description, or returns it.
   *
   * @param text The one-line description.
   * @returns This command (setting) or the description (reading).
   */
  description(text: string): this;
  description(): string;
  description(text?: string): this | string {
    if (text === undefined) return this.#description;
    this.#description = text;
    return this;
  }

  /**
   * Adds another name the command answers to.
   *
   * @param alias The name.
   * @returns This command.
   */
  alias(alias: string): this {
    this.#aliases.push(alias);
    return this;
  }

  /**
   * Adds names, or returns them.
   *
   * @param aliases The names.
   * @returns This command (adding) or the names (reading).
   */
  aliases(aliases: readonly string[]): this;
  aliases(): string[];
  aliases(aliases?: readonly string[]): this | string[] {
    if (aliases === undefined) return [...this.#aliases];
    this.#aliases.push(...aliases);
    return this;
  }

  /**
   * Declares a subcommand.
   *
   * @param name Its name.
   * @param options `hidden` leaves it out of help.
   * @returns The new command.
   */
  command(name: string, options: { hidden?: boolean } = {}): Command {
    const sub = new Command(name);
    sub.parent = this as unknown as Command<unknown[], Record<string, unknown>>;
    sub.hidden = options.hidden === true;
    sub.showGlobalOptions = this.showGlobalOptions;
    this.commands.push(
      sub as unknown as Command<unknown[], Record<string, unknown>>,
    );
    return sub;
  }

  /**
   * Declares an option.
   *
   * @param flags `-s, --long <value>` and the like.
   * @param description Its help text.
   * @param parse Turns the text given (and the previous value) into the value.
   * @param initial The value when it is not given.
   * @returns This command, typed with the option.
   */
  option<F extends string>(
    flags: F,
    description?: string,
  ): Command<Args, WithOption<Opts, F, FlagValue<F>, false>>;
  option<F extends string, T>(
    flags: F,
    description: string,
    parse: (value: string, previous: T) => T,
  ): Command<Args, WithOption<Opts, F, T, false>>;
  option<F extends string, T>(
    flags: F,
    description: string,
    parse: (value: string, previous: T) => T,
    initial: T,
  ): Command<Args, WithOption<Opts, F, T, true>>;
  option(
    flags: string,
    description = "",
    parse?: (value: string, previous: unknown) => unknown,
    initial?: unknown,
  ): unknown {
    const option = new Option(flags, description);
    option.parser = parse;
    if (initial !== undefined) option.defaultValue = initial;
    this.options.push(option);
    return this;
  }

  /**
   * Declares an option that must be given.
   *
   * @param flags `--long <value>`.
   * @param description Its help text.
   * @returns This command, typed with the option.
   */
  requiredOption<F extends string>(
    flags: F,
    description?: string,
  ): Command<Args, WithOption<Opts, F, FlagValue<F>, true>> {
    const option = new Option(flags, description);
    option.mandatory = true;
    this.options.push(option);
    return this as unknown as Command<
      Args,
      WithOption<Opts, F, FlagValue<F>, true>
    >;
  }

  /**
   * Adds an option built with {@linkcode Option}.
   *
   * @param option The option.
   * @returns This command, typed with the option.
   */
  addOption<F extends string, V>(
    option: Option<F, V>,
  ): Command<Args, WithOption<Opts, F, V, false>> {
    this.options.push(option as Option<string, unknown>);
    return this as unknown as Command<Args, WithOption<Opts, F, V, false>>;
  }

  /**
   * Declares a positional argument.
   *
   * @param spec `<name>`, `[name]`, `<name...>`, `[name...]`.
   * @param description Its help text.
   * @returns This command, typed with the argument.
   */
  argument<S extends string>(
    spec: S,
    description?: string,
  ): Command<[...Args, ArgValue<S>], Opts> {
    this.registeredArguments.push(new Argument(spec, description));
    return this as unknown as Command<[...Args, ArgValue<S>], Opts>;
  }

  /**
   * Adds an argument built with {@linkcode Argument} (for choices).
   *
   * @param argument The argument.
   * @returns This command.
   */
  addArgument<S extends string>(
    argument: Argument<S>,
  ): Command<[...Args, ArgValue<S>], Opts> {
    this.registeredArguments.push(argument);
    return this as unknown as Command<[...Args, ArgValue<S>], Opts>;
  }

  /**
   * Adds text after the generated help.
   *
   * @param _position Always `after`.
   * @param text The text.
   * @returns This command.
   */
  addHelpText(_position: "after", text: string): this {
    this.helpAfter.push(text);
    return this;
  }

  /**
   * Sets what runs when the command is chosen.
   *
   * @param action Receives the arguments, the options and the command.
   * @returns This command.
   */
  action(
    action: (...args: [...Args, Opts, this]) => void | Promise<void>,
  ): this {
    this.#action = action as Action;
    return this;
  }

  /**
   * Adds `-V, --version`, or returns the version.
   *
   * @param version The version printed.
   * @returns This command (setting) or the version (reading).
   */
  version(version: string): this;
  version(): string | undefined;
  version(version?: string): this | string | undefined {
    if (version === undefined) return this.#version;
    this.#version = version;
    this.options.push(new Option("-V, --version", "print the version"));
    return this;
  }

  /**
   * Where help and errors go, and the line after an error.
   *
   * @param output The writers.
   * @param helpAfterError The line printed after an error.
   * @returns This command.
   */
  configureOutput(output: CommandOutput, helpAfterError: string): this {
    this.#output = output;
    this.#helpAfterError = helpAfterError;
    return this;
  }

  /** The values of this command's options after parsing. */
  opts(): Opts {
    return this.#values as Opts;
  }

  /** The help text of this command (empty until output is configured). */
  helpInformation(): string {
    const self = this as unknown as Command<unknown[], Record<string, unknown>>;
    return this.#root().#output?.formatHelp(self) ?? "";
  }

  /** The options above this command that also apply to it. */
  globalOptions(): Option<string, unknown>[] {
    const found: Option<string, unknown>[] = [];
    for (let up = this.parent; up !== undefined; up = up.parent) {
      found.push(...up.options);
    }
    return found;
  }

  /**
   * Parses the arguments and runs the chosen command's action.
   *
   * @param argv The arguments after the program name.
   * @throws {CliExit} After printing help or the version (or help for a
   *   command that needs a subcommand, with exit code 2).
   * @throws {CliUsageError} For a usage error, after printing it.
   */
  async parseAsync(argv: readonly string[]): Promise<void> {
    try {
      await this.#parse(argv);
    } catch (error) {
      if (error instanceof CliUsageError) {
        this.#write("err", `error: ${error.message}\n`);
        if (error.suggestion) this.#write("err", `${error.suggestion}\n`);
        if (this.#helpAfterError) {
          this.#write("err", `${this.#helpAfterError}\n`);
        }
      }
      throw error;
    }
  }

  async #parse(argv: readonly string[]): Promise<void> {
    let current = this as unknown as AnyCommand;
    const chain: AnyCommand[] = [current];
    const positional: string[] = [];
    current.#reset();
    let tokens = [...argv];
    let onlyPositional = false;
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!;
      if (onlyPositional || token === "-" || !token.startsWith("-")) {
        const sub = positional.length === 0 && !onlyPositional
          ? current.#subcommand(token)
          : undefined;
        if (sub !== undefined) {
          current = sub;
          chain.push(sub);
          sub.#reset();
        } else {
          current.#refuseUnknownCommand(token, tokens[i + 1]);
          positional.push(token);
        }
      } else if (token === "--") {
        onlyPositional = true;
      } else if (token === "-h" || token === "--help") {
        this.#write("out", current.helpInformation());
        throw new CliExit(0);
      } else {
        ({ tokens, index: i } = this.#takeOption(chain, tokens, i));
      }
    }
    if (current.#action === undefined) {
      // A group without its subcommand: help, as a usage error.
      this.#write("err", current.helpInformation());
      throw new CliExit(2);
    }
    const args = current.#assignArguments(positional);
    for (const command of chain) command.#applyDefaults();
    const missing = current.options.find((option) =>
      option.mandatory && current.#values[option.key] === undefined
    );
    if (missing !== undefined) {
      throw new CliUsageError(
        `required option '${missing.flags}' not specified`,
      );
    }
    await current.#action(...args, current.#values, current);
  }

  /** A word where a group expects its subcommand: `help [command]`, or an error. */
  #refuseUnknownCommand(token: string, next: string | undefined): void {
    if (this.commands.length === 0 || this.#action !== undefined) return;
    if (token === "help") {
      const named = next === undefined ? this : this.#subcommand(next);
      if (named === undefined) {
        throw new CliUsageError(`unknown command '${next}'`);
      }
      this.#write("out", named.helpInformation());
      throw new CliExit(0);
    }
    throw new CliUsageError(
      `unknown command '${token}'`,
      suggestion(token, this.#commandNames()),
    );
  }

  /**
   * Takes the option at `tokens[index]` and its value.
   *
   * @returns The tokens (`-vE` is split into `-v -E`) and the last index used.
   */
  #takeOption(
    chain: readonly AnyCommand[],
    tokens: string[],
    index: number,
  ): { tokens: string[]; index: number } {
    const { name, inline } = splitToken(tokens[index]!);
    const found = findOption(chain, name);
    if (found === undefined) {
      const known = chain.flatMap((command) =>
        command.options.flatMap((option) => [option.long, option.short])
      ).filter((flag): flag is string => flag !== undefined);
      throw new CliUsageError(
        `unknown option '${name}'`,
        name.startsWith("--") ? suggestion(name, known) : undefined,
      );
    }
    const { option, owner } = found;
    if (option.long === "--version" && owner.#version !== undefined) {
      this.#write("out", `${owner.#version}\n`);
      throw new CliExit(0);
    }
    if (option.optionalValue) {
      const next = tokens[index + 1];
      if (inline !== undefined) owner.#setValue(option, inline);
      else if (next !== undefined && /^\d+$/.test(next)) {
        owner.#setValue(option, next);
        index++;
      } else owner.#values[option.key] = true;
      return { tokens, index };
    }
    if (!option.takesValue) {
      if (inline !== undefined && name.startsWith("--")) {
        throw new CliUsageError(`option '${option.flags}' takes no value`);
      }
      owner.#values[option.key] = !option.negate;
      // `-vE`: more switches in one token.
      return inline === undefined ? { tokens, index } : {
        tokens: [
          ...tokens.slice(0, index + 1),
          `-${inline}`,
          ...tokens.slice(index + 1),
        ],
        index,
      };
    }
    let value = inline;
    if (value === undefined) {
      const next = tokens[index + 1];
      if (next === undefined || (next.startsWith("-") && next !== "-")) {
        throw new CliUsageError(`option '${option.flags}' argument missing`);
      }
      value = next;
      index++;
    }
    owner.#setValue(option, value);
    // `--forget a b c`: a list option takes the values that follow.
    while (
      option.variadic && tokens[index + 1] !== undefined &&
      !tokens[index + 1]!.startsWith("-")
    ) {
      owner.#setValue(option, tokens[++index]!);
    }
    return { tokens, index };
  }

  #reset(): void {
    this.#values = {};
  }

  #subcommand(
    name: string,
  ): Command<unknown[], Record<string, unknown>> | undefined {
    return this.commands.find((command) =>
      command.#name === name || command.#aliases.includes(name)
    );
  }

  #commandNames(): string[] {
    return this.commands.filter((command) => !command.hidden).flatMap((
      command,
    ) => [command.#name, ...command.#aliases]);
  }

  #setValue(option: Option<string, unknown>, text: string): void {
    if (option.allowed !== undefined && !option.allowed.includes(text)) {
      throw new CliUsageError(
        `option '${option.flags}' argument '${text}' is invalid. Allowed choices are ${
          option.allowed.join(", ")
        }.`,
      );
    }
    const previous = this.#values[option.key] ?? option.defaultValue;
    if (option.parser !== undefined) {
      try {
        this.#values[option.key] = option.parser(text, previous);
      } catch (error) {
        if (!(error instanceof InvalidArgumentError)) throw error;
        throw new CliUsageError(
          `option '${option.flags}' argument '${text}' is invalid. ${error.message}`,
        );
      }
      return;
    }
    this.#values[option.key] = option.variadic
      ? [...(Array.isArray(previous) ? previous : []), text]
      : text;
  }

  #applyDefaults(): void {
    for (const option of this.options) {
      if (this.#values[option.key] !== undefined) continue;
      if (option.defaultValue === undefined) continue;
      // `--title <text>` beside `--no-title`: not given means neither.
      const paired = option.negate &&
        this.options.some((other) =>
          other !== option && other.key === option.key && !other.negate
        );
      if (!paired) this.#values[option.key] = option.defaultValue;
    }
  }

  #assignArguments(positional: string[]): unknown[] {
    const values: unknown[] = [];
    let next = 0;
    for (const argument of this.registeredArguments) {
      if (argument.variadic) {
        const rest = positional.slice(next);
        next = positional.length;
        if (argument.required && rest.length === 0) {
          throw new CliUsageError(
            `missing required argument '${argument.name()}'`,
          );
        }
        rest.forEach((value) => checkChoice(argument, value));
        values.push(rest);
        continue;
      }
      const value = positional[next];
      if (value === undefined && argument.required) {
        throw new CliUsageError(
          `missing required argument '${argument.name()}'`,
        );
      }
      if (value !== undefined) checkChoice(argument, value);
      values.push(value);
      next++;
    }
    if (next < positional.length) {
      const expected = this.registeredArguments.length;
      throw new CliUsageError(
        `too many arguments${
          this.#name ? ` for '${this.#name}'` : ""
        }. Expected ${expected} argument${
          expected === 1 ? "" : "s"
        } but got ${positional.length}.`,
      );
    }
    return values;
  }

  #root(): Command<unknown[], Record<string, unknown>> {
    let root = this as unknown as Command<unknown[], Record<string, unknown>>;
    while (root.parent !== undefined) root = root.parent;
    return root;
  }

  #write(stream: "out" | "err", text: string): void {
    const output = this.#root().#output;
    if (output === undefined) return;
    if (stream === "out") output.writeOut(text);
    else output.writeErr(text);
  }
}

/**
 * `opts` with an option added: `--no-x` is a boolean that defaults to true,
 * an option with a default is always set, others may be missing; a key
 * declared twice (`--title <text>` and `--no-title`) takes either value.
 */
type WithOption<
  Opts extends Record<string, unknown>,
  F extends string,
  V,
  Defaulted extends boolean,
> = OptionKey<F> extends keyof Opts ?
    & Omit<Opts, OptionKey<F>>
    & {
      [K in OptionKey<F>]?:
        | Exclude<Opts[K], undefined>
        | (LongFlag<F> extends `no-${string}` ? false : V);
    }
  : LongFlag<F> extends `no-${string}` ? Opts & { [K in OptionKey<F>]: boolean }
  : Defaulted extends true ? Opts & { [K in OptionKey<F>]: V }
  : Opts & { [K in OptionKey<F>]?: V };

function splitToken(token: string): { name: string; inline?: string } {
  if (token.startsWith("--")) {
    const equals = token.indexOf("=");
    return equals === -1
      ? { name: token }
      : { name: token.slice(0, equals), inline: token.slice(equals + 1) };
  }
  return token.length > 2
    ? { name: token.slice(0, 2), inline: token.slice(2) }
    : { name: token };
}

function findOption(
  chain: readonly Command<unknown[], Record<string, unknown>>[],
  name: string,
):
  | {
    option: Option<string, unknown>;
    owner: Command<unknown[], Record<string, unknown>>;
  }
  | undefined {
  for (let at = chain.length - 1; at >= 0; at--) {
    const owner = chain[at]!;
    const option = owner.options.find((candidate) => candidate.matches(name));
    if (option !== undefined) return { option, owner };
  }
  return undefined;
}

function checkChoice(argument: Argument, value: string): void {
  if (argument.allowed !== undefined && !argument.allowed.includes(value)) {
    throw new CliUsageError(
      `command-argument value '${value}' is invalid for argument '${argument.name()}'. Allowed choices are ${
        argument.allowed.join(", ")
      }.`,
    );
  }
}

/** `(Did you mean X?)` for the closest known word, as commander suggests. */
function suggestion(
  word: string,
  known: readonly string[],
): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(word, candidate);
    const length = Math.max(word.length, candidate.length);
    if ((length - distance) / length <= 0.4) continue;
    if (distance < bestDistance && distance <= 3) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best === undefined ? undefined : `(Did you mean ${best}?)`;
}

/** Damerau–Levenshtein distance (transpositions count as one). */
function editDistance(a: string, b: string): number {
  const d: number[][] = [];
  for (let i = 0; i <= a.length; i++) d[i] = [i];
  for (let j = 0; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(
        d[i - 1]![j]! + 1,
        d[i]![j - 1]! + 1,
        d[i - 1]![j - 1]! + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
      }
    }
  }
  return d[a.length]![b.length]!;
}
