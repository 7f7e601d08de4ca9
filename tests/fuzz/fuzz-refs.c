/*
 * fuzz-refs.c: the checks that stand between a user's text and the
 * database: credential references (credref_check), endpoint URLs
 * (url_check) and names (name_check). A refused credential must never be
 * echoed in the message, since it may be the secret itself.
 */
#include "config.h"

#include <string.h>

#include "aivet/domain.h"
#include "fuzz.h"

/* Every text credref_check can say, from inputs that hold no secret: a
 * refusal may contain the input only where the input happens to be part of
 * that fixed text. */
static void
fixed_messages(struct buf *b)
{
	static const char *const classes[] = { "x", "env:", "file:" };
	struct aerr err;

	for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
		credref_check(classes[i], &err);
		buf_adds(b, err.msg);
		buf_adds(b, "\n");
	}
}

FUZZ_TARGET(refs)
{
	static struct buf fixed;
	char *s = fuzz_cstr(data, size);
	struct aerr err;

	if (fixed.data == NULL)
		fixed_messages(&fixed);
	aerr_clear(&err);
	if (credref_check(s, &err) != 0) {
		FUZZ_ASSERT(err.code == AV_USAGE);
		if (strstr(err.msg, s) != NULL)
			FUZZ_ASSERT(strstr(fixed.data, s) != NULL);
	} else {
		FUZZ_ASSERT(strncmp(s, "env:", 4) == 0 || strncmp(s, "file:", 5) == 0);
	}
	for (int insecure = 0; insecure <= 1; insecure++) {
		aerr_clear(&err);
		if (url_check(s, insecure, &err) != 0)
			FUZZ_ASSERT(err.code == AV_USAGE && err.msg[0] != '\0');
		else
			FUZZ_ASSERT(strncasecmp(s, "http", 4) == 0 || strstr(s, "://") == NULL);
	}
	(void)url_is_loopback_host(s);
	aerr_clear(&err);
	if (name_check("vendor", s, &err) == 0)
		FUZZ_ASSERT(s[0] != '\0' && strchr(s, '/') == NULL);
	free(s);
	return 0;
}
