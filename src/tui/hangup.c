/*
 * hangup.c: whether the TUI's terminal is gone. The stop signals set
 * tui_got_term (tui.c installs the handler); a terminal closed without one
 * reaching this process shows on its descriptor. Every key loop, the main
 * one's and each dialog's, asks here after a read fails, so none reads on a
 * dead terminal for ever.
 */
#include "config.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include "tui.h"

volatile sig_atomic_t tui_got_term;

int
tui_input_lost(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };

	/* A hangup the signal did not bring (the pane's process group was another),
	 * or a terminal closed under us: the descriptor says so without waiting. */
	if (!tui_got_term && poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0)
		tui_got_term = 1;
	return tui_got_term;
}
