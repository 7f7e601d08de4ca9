/*
 * cli/terminal.c: what the command line alone does with the terminal and the
 * standard streams, which the library never touches: escaped text and JSON on
 * stdout, the fatal message on stderr, and the key store's questions (the
 * passphrase read from the terminal without echo, the key derivation's
 * "deriving the key (scrypt, N MiB)... done" on a terminal's stderr).
 * cli_terminal_init() hands the library these callbacks once, at start.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"

void
term_write(FILE *f, const char *s)
{
	char *safe = text_escape(s, strlen(s), 1);

	fputs(safe, f);
	free(safe);
}

int
term_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory");
	term_write(f, s);
	free(s);
	return n;
}

void
json_emit(cJSON *v)
{
	char *s;

	json_print_prepare(v);
	s = cJSON_Print(v);

	if (s == NULL)
		die("out of memory");
	/* cJSON indents with tabs; field names and values are the contract, not the layout. */
	fputs(s, stdout);
	fputc('\n', stdout);
	free(s);
	cJSON_Delete(v);
}

static void
fatal_report(const char *msg)
{
	fprintf(stderr, "aivet: fatal: %s\n", msg);
}

/* Reads up to the end of the line from the terminal with echo off. */
static int
tty_ask(void *arg, const char *prompt, char *pw, size_t cap, size_t *len, struct aerr *err)
{
	struct termios old, quiet;
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC), rc = 0;
	size_t n = 0;
	char c;

	(void)arg;
	if (fd < 0 || tcgetattr(fd, &old) != 0) {
		if (fd >= 0)
			close(fd);
		return aerr_set(err, AV_USAGE, "a passphrase is needed: set AIVET_KEY_PASSWORD_FILE "
		    "or run on a terminal");
	}
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
	quiet.c_lflag |= ICANON;
	/* Echo off before the prompt: TCSAFLUSH drops what was typed before it, and a
	 * passphrase typed as soon as the prompt shows must not be dropped (nor echoed). */
	if (tcsetattr(fd, TCSAFLUSH, &quiet) != 0 || write(fd, prompt, strlen(prompt)) < 0) {
		tcsetattr(fd, TCSAFLUSH, &old);
		close(fd);
		return aerr_set(err, AV_RUNTIME, "cannot switch off echo on the terminal");
	}
	for (;;) {
		ssize_t r = read(fd, &c, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || c == '\n')
			break;
		if (n + 1 >= cap) {
			rc = aerr_set(err, AV_USAGE, "passphrase longer than %zu bytes", cap - 1);
			break;
		}
		pw[n++] = c;
	}
	c = 0;
	tcsetattr(fd, TCSAFLUSH, &old);
	if (write(fd, "\n", 1) < 0) {
		/* nothing to do: the newline is cosmetic */
	}
	close(fd);
	pw[n] = '\0';
	*len = n;
	return rc;
}

/* On a terminal only: off one, stderr stays for errors. */
static void
tty_kdf(void *arg, enum key_kdf_step step, unsigned long long mib)
{
	(void)arg;
	if (!isatty(STDERR_FILENO))
		return;
	if (step == KEY_KDF_START)
		fprintf(stderr, "aivet: deriving the key (scrypt, %llu MiB)... ", mib);
	else
		fputs(step == KEY_KDF_DONE ? "done\n" : "failed\n", stderr);
}

void
cli_terminal_init(void)
{
	static const struct key_asker tty = { tty_ask, tty_kdf, NULL };

	die_report_set(fatal_report);
	key_asker_set(&tty, NULL);
}
