/*
 * evidence-key.h: the evidence key, which seals leaked content at rest so
 * that a copied database does not spread what a vendor leaked.
 */
#ifndef AIVET_EVIDENCE_KEY_H
#define AIVET_EVIDENCE_KEY_H

#include "base.h"

/* The evidence key's public half ($XDG_CONFIG_HOME/aivet/evidence.pub),
 * making the pair on first use; 32 bytes, a crypto_box public key. */
int evidence_key_public(unsigned char pk[32], struct aerr *err);
/* Opens a blob sealed to the evidence key with evidence.key. */
int evidence_open_sealed(const void *sealed, size_t len, struct buf *out, struct aerr *err);

#endif
