/*
 * cmd-tui.c: "aivet tui" — opens the terminal UI, as "aivet" alone does on
 * a terminal. The UI is the other front end: main.c hands it over (struct cli's tui),
 * so the command line never calls into it.
 */
#include "config.h"

#include <unistd.h>

#include "cli.h"

static int
cmd_tui_exec(struct aivet *av, const struct cmd_args *args, struct aerr *err)
{
	(void)args;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return aerr_set(err, AV_USAGE, "the terminal UI needs a terminal; use the CLI "
		    "instead (see 'aivet --help')");
	if (cli_of(av)->tui == NULL)
		return aerr_set(err, AV_USAGE, "this program has no terminal UI");
	return cli_of(av)->tui(av, err);
}

const struct cmd_entry cmd_tui_entry = {
	.name = "tui",
	.summary = "open the terminal UI (the default on a terminal)",
	.exec = cmd_tui_exec,
	.args = ARGS_NONE,
};
