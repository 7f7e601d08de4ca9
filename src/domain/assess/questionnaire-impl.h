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
int is_choice_type(int type);
int is_ident(const char *s, const char *extra);
int is_date(const char *s);
int choice_index(const struct q_question *qq, const char *value);

/* ---- problems, and reading members that report them (questionnaire-problems.c) ---- */
void locate_problems(struct vctx *v);
void problem(struct vctx *v, const cJSON *node, int at_key, const char *path, const char *fmt, ...);
void problem_key(struct vctx *v, const cJSON *node, const char *path, const char *key, const char *fmt, ...);
char *path_key(const char *path, const char *key);
char *path_index(const char *path, int i);
void check_keys(struct vctx *v, const cJSON *obj, const char *path, const char *const *allowed);
const char *want_string(struct vctx *v, const cJSON *obj, const char *path, const char *key, int required);
const cJSON *want_array(struct vctx *v, const cJSON *obj, const char *path, const char *key, int required);
int want_risk(struct vctx *v, const cJSON *it, const char *path);

/* ---- the two passes (questionnaire-check.c, questionnaire-refs.c) ---- */
void check_references(struct vctx *v, struct questionnaire *q, struct qref *refs);

#endif
