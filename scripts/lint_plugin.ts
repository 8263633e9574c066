/**
 * jpt's own lint rules, run by `deno lint` (deno.json `lint.plugins`):
 *
 * - `jpt/max-function-lines`: no function in `src/app/` or `src/cli/` is
 *   longer than {@linkcode MAX_FUNCTION_LINES} lines (flows are split into
 *   stages; commands parse, call one flow and format).
 *
 * @module
 */

/** The longest function allowed in `src/app/` and `src/cli/`. */
export const MAX_FUNCTION_LINES = 100;

const CHECKED = /[\\/]src[\\/](app|cli)[\\/]/;

const plugin: Deno.lint.Plugin = {
  name: "jpt",
  rules: {
    "max-function-lines": {
      create(context) {
        if (!CHECKED.test(context.filename)) return {};
        const text = context.sourceCode.text;
        const lineAt = (offset: number) =>
          text.slice(0, offset).split("\n").length;
        const check = (
          node:
            | Deno.lint.FunctionDeclaration
            | Deno.lint.FunctionExpression
            | Deno.lint.ArrowFunctionExpression,
        ) => {
          const lines = lineAt(node.range[1]) - lineAt(node.range[0]) + 1;
          if (lines > MAX_FUNCTION_LINES) {
            context.report({
              node,
              message:
                `function of ${lines} lines (at most ${MAX_FUNCTION_LINES}): split it into stages`,
            });
          }
        };
        return {
          FunctionDeclaration: check,
          FunctionExpression: check,
          ArrowFunctionExpression: check,
        };
      },
    },
  },
};

export default plugin;
