/**
 * Every module of `src/` that jpt loads on first use
 * (`src/runtime/lazy_import.ts`), imported by string literals a bundler and
 * `deno compile` follow. Only single-file builds import this file (through
 * `cli.ts`); a run from the sources loads each module by its path when it is
 * needed. `tests/runtime/lazy_modules_test.ts` keeps this list equal to the
 * paths the sources ask for.
 *
 * @module
 */

import type { ModuleLoaders } from "./src/runtime/lazy_import.ts";

/** Every lazily loaded module, by its path under `src/`. */
export const LAZY_MODULES: ModuleLoaders = {
  "app/backfill.ts": () => import("./src/app/backfill.ts"),
  "app/background_catch_up.ts": () =>
    import("./src/app/background_catch_up.ts"),
  "app/background_title.ts": () => import("./src/app/background_title.ts"),
  "app/batch_backfill.ts": () => import("./src/app/batch_backfill.ts"),
  "app/check_paths.ts": () => import("./src/app/check_paths.ts"),
  "app/conversation_target.ts": () =>
    import("./src/app/conversation_target.ts"),
  "app/conversation_view.ts": () => import("./src/app/conversation_view.ts"),
  "app/describe_models.ts": () => import("./src/app/describe_models.ts"),
  "app/edit_conversation.ts": () => import("./src/app/edit_conversation.ts"),
  "app/find_turns.ts": () => import("./src/app/find_turns.ts"),
  "app/finish_turn.ts": () => import("./src/app/finish_turn.ts"),
  "app/fix_config.ts": () => import("./src/app/fix_config.ts"),
  "app/init_workspace.ts": () => import("./src/app/init_workspace.ts"),
  "app/list_conversations.ts": () => import("./src/app/list_conversations.ts"),
  "app/list_turns.ts": () => import("./src/app/list_turns.ts"),
  "app/run_turn.ts": () => import("./src/app/run_turn.ts"),
  "app/session.ts": () => import("./src/app/session.ts"),
  "app/summary_worker.ts": () => import("./src/app/summary_worker.ts"),
  "app/usage_report.ts": () => import("./src/app/usage_report.ts"),
  "app/watch_workspace.ts": () => import("./src/app/watch_workspace.ts"),
  "app/workspace_turns.ts": () => import("./src/app/workspace_turns.ts"),
  "cli/backfill_progress.ts": () => import("./src/cli/backfill_progress.ts"),
  "cli/check.ts": () => import("./src/cli/check.ts"),
  "cli/check_annotations.ts": () => import("./src/cli/check_annotations.ts"),
  "cli/columns.ts": () => import("./src/cli/columns.ts"),
  "cli/completions.ts": () => import("./src/cli/completions.ts"),
  "cli/config_show.ts": () => import("./src/cli/config_show.ts"),
  "cli/conversation_ls.ts": () => import("./src/cli/conversation_ls.ts"),
  "cli/edit.ts": () => import("./src/cli/edit.ts"),
  "cli/find.ts": () => import("./src/cli/find.ts"),
  "cli/hand_off.ts": () => import("./src/cli/hand_off.ts"),
  "cli/init.ts": () => import("./src/cli/init.ts"),
  "cli/log.ts": () => import("./src/cli/log.ts"),
  "cli/man.ts": () => import("./src/cli/man.ts"),
  "cli/models.ts": () => import("./src/cli/models.ts"),
  "cli/outline.ts": () => import("./src/cli/outline.ts"),
  "cli/plugin.ts": () => import("./src/cli/plugin.ts"),
  "cli/plugin_install.ts": () => import("./src/cli/plugin_install.ts"),
  "cli/plugin_run.ts": () => import("./src/cli/plugin_run.ts"),
  "cli/query.ts": () => import("./src/cli/query.ts"),
  "cli/show.ts": () => import("./src/cli/show.ts"),
  "cli/spinner.ts": () => import("./src/cli/spinner.ts"),
  "cli/summarize.ts": () => import("./src/cli/summarize.ts"),
  "cli/summarize_batch.ts": () => import("./src/cli/summarize_batch.ts"),
  "cli/turns.ts": () => import("./src/cli/turns.ts"),
  "cli/turns_all.ts": () => import("./src/cli/turns_all.ts"),
  "cli/usage.ts": () => import("./src/cli/usage.ts"),
  "cli/watch.ts": () => import("./src/cli/watch.ts"),
  "cli/worker.ts": () => import("./src/cli/worker.ts"),
  "cli/worker_notes.ts": () => import("./src/cli/worker_notes.ts"),
  "config/config_file.ts": () => import("./src/config/config_file.ts"),
  "config/load_config.ts": () => import("./src/config/load_config.ts"),
  "conversation/events_overview.ts": () =>
    import("./src/conversation/events_overview.ts"),
  "edit/run_editor.ts": () => import("./src/edit/run_editor.ts"),
  "llm/chat_client.ts": () => import("./src/llm/chat_client.ts"),
  "llm/describe_error.ts": () => import("./src/llm/describe_error.ts"),
  "summary/batch_state.ts": () => import("./src/summary/batch_state.ts"),
  "summary/prompt.ts": () => import("./src/summary/prompt.ts"),
  "summary/summary_model.ts": () => import("./src/summary/summary_model.ts"),
  "task/title_task.ts": () => import("./src/task/title_task.ts"),
  "workspace/conversation_create.ts": () =>
    import("./src/workspace/conversation_create.ts"),
  "workspace/worker_log.ts": () => import("./src/workspace/worker_log.ts"),
};
