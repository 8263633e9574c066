/**
 * The examples and the environment variables jpt reads, as `jpt --help`
 * ends and as the man page's ENVIRONMENT section lists them.
 *
 * @module
 */

/** The ENVIRONMENT section of `jpt --help`. */
export const ENVIRONMENT_HELP: string = `
Examples:
  jpt init && jpt query --new "Explain the build"
  jpt turns
  jpt summarize --all

Environment:
  OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, …
                          the provider's API key (never printed)
  OPENAI_BASE_URL         where OpenAI requests go (an OpenAI-compatible server)
  JP_CFG_<KEY>            a jp config value, e.g. JP_CFG_ASSISTANT_MODEL_ID=ollama/qwen3:8b
  JPT_CFG_<KEY>           a jpt-only config value, e.g. JPT_CFG_CONVERSATION_TURN_SUMMARY_GENERATE_BATCH_SIZE=3
  JP_GLOBAL_CONFIG_DIR    jp's user config directory (default ~/.config/jp)
  JP_USER_DATA_DIR        jp's user data directory (user-local conversations, session history, plugins)
  JP_SESSION              jp's terminal session (else the Unix session, else TMUX_PANE, WEZTERM_PANE, …):
                          picks the conversation "." and "s" name, and the default one
  JPT_CONFIG_DIR          jpt's user config directory (default ~/.config/jpt)
  JPT_DATA_DIR            jpt's data: turn-summary records, worker log, usage, batch state (default ~/.local/share/jpt)
  JPT_TRUSTED_WORKSPACES  workspaces (absolute paths) whose .jp config may choose where keys are sent
  JPT_MAX_FILE_BYTES      the largest events.json jpt reads (default 2 GiB)
  JPT_LABEL_STORE_MAX     the most conversation records the turn-summary store keeps (default 100000)
  JPT_DRAIN_BUDGET_MS     how long jpt query waits for background work when it does not detach (default 10000)
  JPT_WORKER_LOCK_WAIT_MS how long a background worker waits for a held lock (default 60000)
  JPT_IDLE_TIMEOUT_SECS   give up on a reply that sends nothing this long (default 120)
  JPT_MODEL_RETRIES       retries of a model call answered 429 or 5xx (default 5, 0 for none)
  JPT_BATCH_POLL_SECS     how often summarize --batch-api polls a batch (default 30)
  JP_EDITOR, VISUAL, EDITOR   the editor for jpt edit and for a message typed on a terminal
  NO_COLOR                no colour (colour is also off when output is not a terminal)
`;
