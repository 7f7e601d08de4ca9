/*
 * assess-impl.h: the few helpers assess.c keeps that assess-answer.c also
 * uses, and nothing outside the two needs.
 */
#ifndef AIVET_ASSESS_IMPL_H
#define AIVET_ASSESS_IMPL_H

#include <stddef.h>
#include <cjson/cJSON.h>

#include "claims.h"

/* Whether two strings, either of them NULL, are the same. */
int streq_null(const char *a, const char *b);
/* "question: CODE on ENDPOINT", naming what contradicts the claim. */
void name_contradiction(const struct claim *c, char *out, size_t n);
/* Adds k to o as a copy of v, or null when v is NULL. */
void add_value(cJSON *o, const char *k, const cJSON *v);

#endif
