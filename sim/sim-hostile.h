/*
 * sim-hostile.h: aivet-sim --hostile MODE, a vendor that attacks its
 * client instead of serving it (gzip bombs, endless streams, a byte every
 * ten seconds, lying Content-Length, redirects, escape sequences for the
 * reader's terminal, ...), and TLS with a
 * certificate given on the command line.
 */
#ifndef AIVET_SIM_HOSTILE_H
#define AIVET_SIM_HOSTILE_H

#include <microhttpd.h>

#include "sim.h"

enum sim_hostile {
	HOSTILE_NONE,
	HOSTILE_GZIP_BOMB,       /* 200, Content-Encoding gzip, 256 MiB of JSON text packed in ~256 KiB */
	HOSTILE_ENDLESS_SSE,     /* 200 text/event-stream that never ends */
	HOSTILE_SLOW_DRIP,       /* 200, one byte every 10 s */
	HOSTILE_INVALID_UTF8,    /* 200, a completion whose text is not UTF-8 */
	HOSTILE_DEEP_JSON,       /* 200, JSON nested 100,000 deep */
	HOSTILE_HUGE_HEADER,     /* 200 with a 10 MB header */
	HOSTILE_REDIRECT_LOOP,   /* 302 to the very same URL */
	HOSTILE_REDIRECT_ORIGIN, /* 307 to --redirect-to, another origin */
	HOSTILE_EMPTY_200,       /* 200 with an empty body */
	HOSTILE_LENGTH_LONG,     /* Content-Length larger than the body, then the connection closes */
	HOSTILE_LENGTH_SHORT,    /* Content-Length smaller than the body sent */
	HOSTILE_NUL_BYTES,       /* 200, a completion with NUL bytes and no UTF-8, and such a header */
	HOSTILE_TERMINAL,        /* 400, an error whose keys, codes and message hold terminal escapes */
	HOSTILE_COUNT
};
extern const char *const sim_hostile_names[HOSTILE_COUNT];
int sim_hostile_parse(const char *name, int *out);

/* Builds what a mode needs before the server starts (the gzip bomb). */
int sim_hostile_prepare(const struct sim_config *cfg, struct aerr *err);
/* Answers any request the mode's way, and logs it with whether a credential came along. */
enum MHD_Result sim_hostile_respond(const struct sim_config *cfg, struct MHD_Connection *conn,
    const char *method, const char *url, unsigned long long n);
/* Tells slow responses to end: the server is stopping. */
void sim_hostile_stop(void);

#endif
