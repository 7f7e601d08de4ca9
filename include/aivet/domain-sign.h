/*
 * aivet/domain-sign.h: the signing room (src/domain/sign/): minisign keys and
 * signatures, the key store and the trusted signers, and the passphrase asked
 * through the front end's callback. Reports, approvals and the audit log's
 * checkpoints call down to it; it calls only the core.
 */
#ifndef AIVET_DOMAIN_SIGN_H
#define AIVET_DOMAIN_SIGN_H

#include "minisign.h"

#endif
