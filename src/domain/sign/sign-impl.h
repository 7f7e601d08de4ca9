/*
 * sign-impl.h: what the signing room's files share and nothing outside it
 * needs: the largest key file read, and the key derivation told to the front
 * end (asker.c holds the front end's callbacks, minisign.c derives the key).
 */
#ifndef AIVET_SIGN_IMPL_H
#define AIVET_SIGN_IMPL_H

#include <stdint.h>

#include "minisign.h"

#define KEYFILE_MAX 4096

/* Tells the front end's kdf callback, if any, that scrypt starts, ends or
 * failed over mem bytes. */
void key_kdf_tell(enum key_kdf_step step, uint64_t mem);

#endif
