/*
 * tui/command.c: the ':' command line. What is typed runs as a CLI command
 * in a child process of this same binary; its output shows in the text pager
 * and its error on the status line.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <wordexp.h>

#include "tui.h"

/* The command runs in a child process (this same binary, same database and
 * actor), so nothing a CLI command sets (getopt state, a one-call flag, an
 * open transaction, a stray printf) can reach the TUI's own state. Its
 * stdout and stderr come back separately: the error that main() prints last
 * becomes the status line, the rest is shown as text. */
static int
spawn_cli(struct tui *t, char **words, size_t nwords, struct buf *out, struct buf *errs,
    int *status, struct aerr *err)
{
	extern char **environ;
	char **argv = xcalloc(nwords + 6, sizeof *argv);
	posix_spawn_file_actions_t fa;
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, rc = 0, wst;
	size_t a = 0;
	pid_t pid;

	buf_init(out);
	buf_init(errs);
	argv[a++] = (char *)"aivet";
	argv[a++] = (char *)"--db";
	argv[a++] = (char *)t->av->db_path;
	argv[a++] = (char *)"--actor";
	argv[a++] = t->av->actor;
	for (size_t i = 0; i < nwords; i++)
		argv[a++] = words[i];
	argv[a] = NULL;
	if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0) {
		rc = aerr_set(err, AV_RUNTIME, "cannot run the command: %s", strerror(errno));
		goto done;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, pe[1], STDERR_FILENO);
	rc = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	if (rc != 0) {
		rc = aerr_set(err, AV_RUNTIME, "cannot run the command: %s", strerror(rc));
		goto done;
	}
	for (;;) {
		struct pollfd pf[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
		char chunk[8192];
		int open = 0;

		for (int i = 0; i < 2; i++)
			open += pf[i].fd >= 0;
		if (open == 0)
			break;
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			struct buf *b = i == 0 ? out : errs;
			int *fd = i == 0 ? &po[0] : &pe[0];
			ssize_t r;

			if (pf[i].fd < 0 || pf[i].revents == 0)
				continue;
			r = read(*fd, chunk, sizeof chunk);
			if (r > 0 && b->len < (8u << 20))
				buf_add(b, chunk, (size_t)r);
			else if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) {
				close(*fd);
				*fd = -1;
			}
		}
	}
	while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
		;
	*status = WIFEXITED(wst) ? WEXITSTATUS(wst) : 128 + (WIFSIGNALED(wst) ? WTERMSIG(wst) : 0);
done:
	for (int i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
	buf_add(out, "", 0);
	buf_add(errs, "", 0);
	out->len = strlen(out->data);
	errs->len = strlen(errs->data);
	free(argv);
	return rc;
}

int
tui_run_command(struct tui *t, const char *line, struct aerr *err)
{
	wordexp_t we;
	struct buf out, errs, shown;
	char *title, *msg = NULL;
	int rc, status = 0;

	while (*line == ' ')
		line++;
	if (strncmp(line, "aivet ", 6) == 0)
		line += 6;
	if (*line == '\0')
		return 0;
	if (wordexp(line, &we, WRDE_NOCMD) != 0)
		return aerr_set(err, AV_USAGE, "cannot parse the command line (unbalanced quotes, or $( ) which is not allowed)");
	if (we.we_wordc == 0) {
		wordfree(&we);
		return 0;
	}
	if (strcmp(we.we_wordv[0], "tui") == 0 || strcmp(we.we_wordv[0], "demo") == 0) {
		wordfree(&we);
		return aerr_set(err, AV_USAGE, "'%s' cannot run inside the terminal UI", line);
	}
	rc = spawn_cli(t, we.we_wordv, we.we_wordc, &out, &errs, &status, err);
	wordfree(&we);
	tui_changed(t);
	if (rc != 0) {
		buf_free(&out);
		buf_free(&errs);
		return rc;
	}
	if (status != 0) {
		/* main() prints the error last, as "aivet: MESSAGE" (possibly over
		 * several lines, e.g. a usage line): that is the status. */
		char *p = errs.data;

		for (char *q = errs.data; (q = strstr(q, "aivet: ")) != NULL; q++)
			if (q == errs.data || q[-1] == '\n')
				p = q;
		if (strncmp(p, "aivet: ", 7) == 0) {
			size_t n = strlen(p + 7);

			msg = xstrdup(p + 7);
			while (n > 0 && msg[n - 1] == '\n')
				msg[--n] = '\0';
			*p = '\0';
			errs.len = (size_t)(p - errs.data);
		}
	}
	buf_init(&shown);
	buf_add(&shown, out.data, out.len);
	buf_add(&shown, errs.data, errs.len);
	buf_add(&shown, "", 0);
	if (shown.len > 0) {
		title = xasprintf(":%s", line);
		tui_show_text(t, title, shown.data, err);
		free(title);
	}
	buf_free(&shown);
	buf_free(&out);
	buf_free(&errs);
	if (status != 0) {
		if (msg != NULL)
			tui_status(t, 1, "%s", msg);
		else
			tui_status(t, 1, "command failed (exit %d)", status);
		free(msg);
		return 0;
	}
	tui_status(t, 0, "done: %s", line);
	return 0;
}
