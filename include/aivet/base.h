/*
 * base.h: what aivet and aivet-sim both stand on, with no database, terminal
 * or HTTP client in it: errors as values (struct aerr) and the exit codes
 * they carry, memory that cannot fail, a growable buffer, UTC time, files
 * written whole, text made safe to show, whole-number options and cJSON
 * members. aivet.h includes it; aivet-sim includes only this.
 */
#ifndef AIVET_BASE_H
#define AIVET_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>

/* Exit codes: a stable contract, documented in aivet(1). */
enum {
	AV_OK = 0,       /* success */
	AV_FINDINGS = 1, /* findings at or above the threshold, or verification failed */
	AV_USAGE = 2,    /* usage error or bad input; nothing was changed */
	AV_RUNTIME = 3,  /* runtime error: network, database, file system */
};

/* An error as a value: a code from the enum above and a message for humans. */
struct aerr {
	int code;
	char msg[1024];
};

int aerr_set(struct aerr *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void aerr_clear(struct aerr *err);
/* Prefixes the current message with context ("file.json: ..."). */
int aerr_prefix(struct aerr *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The one exit for the truly fatal (out of memory, broken invariants): the
 * message goes to the reporter the program's front end set (the library
 * prints nothing itself), then the process aborts. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void die_report_set(void (*report)(const char *msg));

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable byte buffer, always NUL-terminated. */
struct buf {
	char *data;
	size_t len, cap;
};
void buf_init(struct buf *b);
void buf_add(struct buf *b, const void *p, size_t n);
void buf_adds(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s as one word of a POSIX shell command line, so a suggested command
 * can be pasted: as it is when every byte is one no shell treats specially,
 * else in single quotes (a quote inside as '\''). */
void buf_shell_word(struct buf *b, const char *s);
/* The same as a new string (xmalloc'd). */
char *shell_word(const char *s);
char *buf_steal(struct buf *b);
void buf_free(struct buf *b);

/* Time: evidence and the audit log use UTC ISO 8601 with milliseconds and Z. */
int64_t now_ms(void);                     /* wall clock, ms since the epoch */
void fmt_time_ms(int64_t ms, char out[32]); /* 2026-11-30T12:34:56.789Z */
void now_iso(char out[32]);
/* Parses ISO 8601 (date, date-time with Z or +hh:mm, optional fraction) into ms. */
/* Also "now", "today", "tomorrow", "yesterday" (that UTC date) and "+3d",
 * "-2w", "+4h", "+30m" (from now). */
int parse_time(const char *s, int64_t *ms, struct aerr *err);
/* As parse_time, also giving the zone's offset east of UTC in minutes (0 for Z or a date). */
int parse_time_zone(const char *s, int64_t *ms, int *offset_min, struct aerr *err);
/* Whole seconds in a given zone: 2026-03-02T09:00:00-05:00 (Z for offset 0). */
void fmt_time_offset(int64_t ms, int offset_min, char out[40]);

/* Files. */
int mkdir_p(const char *path, unsigned mode, struct aerr *err);
/* Opens path for reading only when it is a regular file: a FIFO or device is
 * refused before any read, without blocking (and, with nofollow, a symbolic
 * link as the last component). Every file aivet reads is opened so. Returns
 * the descriptor (blocking, close-on-exec) or -1 with err set (AV_USAGE). */
int open_regular(const char *path, int nofollow, struct aerr *err);
/* Reads a whole regular file (open_regular) of at most max bytes. */
int read_file(const char *path, size_t max, struct buf *out, struct aerr *err);
/* A directory written whole or not at all: outdir_begin makes a fresh
 * directory beside dir (mkdtemp, so nothing planted at a guessable name is
 * used), outdir_commit gives it mode and renames it to dir (which must be
 * absent or empty), outdir_discard removes it and what is inside without
 * following symbolic links. */
int outdir_begin(const char *dir, char **tmp, struct aerr *err);
int outdir_commit(const char *tmp, const char *dir, unsigned mode, struct aerr *err);
void outdir_discard(const char *tmp);
/* Writes rel (a relative path of plain names, directories made as needed) below
 * root, which must be a fresh directory (outdir_begin): no symbolic link is
 * followed on the way, and a name that exists already is refused. */
int write_file_below(const char *root, const char *rel, const void *data, size_t len,
    unsigned mode, struct aerr *err);
/* Writes atomically: temp file in the same directory, fsync, rename. */
int write_file_atomic(const char *path, const void *data, size_t len, unsigned mode, struct aerr *err);
void sha256_hex(const void *data, size_t len, char out[65]);

/* Text from outside (a vendor's reply, a file, a name someone typed) made safe
 * to show: C0 and C1 control characters, DEL, bidirectional overrides and
 * invalid UTF-8 become visible escapes (\x1b, \u202e); with keep_lines, LF
 * and tab pass through. Escaping twice changes nothing. Returns malloc'ed text. */
char *text_escape(const char *s, size_t n, int keep_lines);
/* Appends s for a Markdown table cell or line: control characters escaped
 * (text_escape), HTML markup and entities escaped, '|' escaped, and each line
 * break replaced by newline ("<br>" or " "). */
void md_escape(struct buf *b, const char *s, const char *newline);
/* Imported text (a sheet's cell) may hold no C0 control character but tab
 * and line breaks (LF, CR): the first other one as a problem
 * ("holds the control character U+001B (ESC) at character 4: ..."),
 * malloc'ed, or NULL when there is none. */
char *text_c0_problem(const char *s);
/* Length of the UTF-8 sequence at p (at most n bytes) with its code point,
 * or 0 when it is invalid (overlong, surrogate, beyond U+10FFFF, cut short). */
size_t utf8_decode(const unsigned char *p, size_t n, uint32_t *cp);
/* True for code points that must not appear in names or on a terminal:
 * C0, DEL, C1, and the bidirectional embeddings, overrides and isolates. */
int unsafe_codepoint(uint32_t cp);
void hex_encode(const unsigned char *in, size_t n, char *out);
/* Random identifier-like string of n characters from [A-Za-z0-9]. */
void random_alnum(char *out, size_t n);
/* Whether s[0..n) is well-formed UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF). */
int utf8_valid(const void *s, size_t n);
/* A file's digest, read in chunks: SHA-256 (32 bytes) or BLAKE2b-512 (64,
 * minisign's prehash). A file that cannot be opened is bad input
 * (AV_USAGE), a read that fails AV_RUNTIME. */
enum file_digest_kind { DIGEST_SHA256, DIGEST_BLAKE2B512 };
int file_digest(const char *path, enum file_digest_kind kind, unsigned char *out, struct aerr *err);
/* aivet's own directory under the XDG base directory: AIVET_DATA_DIR is
 * $XDG_DATA_HOME/aivet (else ~/.local/share/aivet), AIVET_CONFIG_DIR
 * $XDG_CONFIG_HOME/aivet (else ~/.config/aivet). Newly allocated. */
enum aivet_dir_kind { AIVET_DATA_DIR, AIVET_CONFIG_DIR };
char *aivet_dir(enum aivet_dir_kind kind);

/* Parses a whole decimal number in [lo, hi] or explains which option was wrong. */
int parse_int_opt(const char *opt, const char *s, int64_t lo, int64_t hi, int64_t *out, struct aerr *err);

/* Adds a string, or null for NULL. */
void json_add_str(cJSON *o, const char *k, const char *v);
/* A string member, or NULL when absent or not a string. */
const char *json_get_str(const cJSON *o, const char *k);
/* Readies a document about to be printed and freed for a fast print: each
 * whole number becomes its digits, the text cJSON would print. */
void json_print_prepare(cJSON *v);

/* The edit distance between two words (a swapped pair of letters is one edit). */
int typo_distance(const char *a, const char *b);
/* The name among names that typed most likely meant: one within a typo's
 * distance (one edit for up to four letters, two for longer), else the one
 * name holding each of typed's words in order; NULL when none. */
const char *name_suggest(const char *typed, const char *const *names, size_t n);

#endif
