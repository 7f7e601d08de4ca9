/*
 * questionnaire-impl.h: what the files that read a questionnaire share and
 * nothing outside them needs: the checker's context and its problems
 * (questionnaire-problems.c), the second pass's list of questions
 * (questionnaire-refs.c), and the small tests of names and values that
 * questionnaire-answer.c keeps.
 */
#ifndef AIVET_QUESTIONNAIRE_IMPL_H
#define AIVET_QUESTIONNAIRE_IMPL_H

#include <stdarg.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#include "questionnaire.h"

/* A problem is located (line and column) only when all are known: one walk
 * of the text for all of them, so a file with many problems stays linear. */
struct vproblem {
	size_t off;
	int seq;
	const cJSON *node;
	int at_key;
	char *line;   /* "PATH: message" until located, then the whole line */
};

struct vctx {
	const char *name, *text;
	size_t len;
	const cJSON *root;
	struct vproblem *p;
	int n, cap;
};

/* What the second pass needs: each question's node and path. */
struct qref {
	const cJSON *node;
	char *path;
};

/* ---- names and values (questionnaire-answer.c) ---- */
/* yes_no, single_choice or multi_choice: a type whose answers are choices. */
int is_choice_type(int type);
/* Lower-case letters, digits and the given extra punctuation, 1 to 64 characters. */
int is_ident(const char *s, const char *extra);
/* YYYY-MM-DD, a real day. */
int is_date(const char *s);
/* The index of the choice with this value in qq, or -1. */
int choice_index(const struct q_question *qq, const char *value);

/* ---- problems, and reading members that report them (questionnaire-problems.c) ---- */
/* Gives every problem its file:line:column, in one walk of the text. */
void locate_problems(struct vctx *v);
/* A problem at node (at its key when at_key), named by its JSON path. */
void problem(struct vctx *v, const cJSON *node, int at_key, const char *path,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A problem at obj's member key, named PATH.key. */
void problem_key(struct vctx *v, const cJSON *node, const char *path, const char *key,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* "PATH.key" and "PATH[i]", malloc'ed. */
char *path_key(const char *path, const char *key);
char *path_index(const char *path, int i);
/* A problem for each member of obj that allowed (NULL-terminated) does not
 * name, and for each allowed one given twice. */
void check_keys(struct vctx *v, const cJSON *obj, const char *path, const char *const *allowed);
/* The member key as a non-empty string or array; NULL otherwise, with a
 * problem unless it is optional and absent. */
const char *want_string(struct vctx *v, const cJSON *obj, const char *path, const char *key, int required);
const cJSON *want_array(struct vctx *v, const cJSON *obj, const char *path, const char *key, int required);
/* it as a risk name (risk_parse), or -1 and a problem. */
int want_risk(struct vctx *v, const cJSON *it, const char *path);

/* ---- the second pass (questionnaire-refs.c), once every question is indexed ---- */
void check_references(struct vctx *v, struct questionnaire *q, struct qref *refs);

#endif
