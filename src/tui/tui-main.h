/*
 * tui/tui-main.h: the terminal UI's entry, all main.c needs of the TUI, so
 * that the program can hand it to "aivet tui" without curses' names.
 */
#ifndef AIVET_TUI_MAIN_H
#define AIVET_TUI_MAIN_H

#include "aivet/core.h"

/* ---- TUI (tui.c) ---- */
int tui_main(struct aivet *av, struct aerr *err);

#endif
