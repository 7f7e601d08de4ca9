/*
 * aivet/vendors.h: the vendors layer's public headers: reaching a vendor's
 * API (the provider interface, HTTP, prompts), credential references and
 * URL checks. It calls the core only.
 */
#ifndef AIVET_VENDORS_H
#define AIVET_VENDORS_H

#include "core.h"
#include "credref.h"
#include "url.h"
#include "prompt.h"
#include "http.h"
#include "provider.h"

#endif
