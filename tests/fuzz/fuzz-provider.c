/*
 * fuzz-provider.c: every provider adapter's response, error and stream
 * readers (provider_read, and parse_count where the API counts tokens) on
 * whatever a vendor might send back. The first byte picks the adapter
 * (low bits) and streaming (high bit), the second the HTTP status, the rest
 * is the body. The result must stay well formed: text a string (or none), usage -1 or
 * a count, an error message terminated, and a stream error only in a stream.
 */
#include "config.h"

#include <string.h>

#include "aivet/domain.h"
#include "provider.h"
#include "fuzz.h"

FUZZ_TARGET(provider)
{
	static const long statuses[] = { 200, 400, 401, 404, 413, 422, 429, 500, 503, 529 };
	size_t nprov = 0;
	const struct provider *p;
	struct prov_result r;
	long status;
	int stream;

	while (provider_table[nprov] != NULL)
		nprov++;
	if (size < 2)
		return 0;
	p = provider_table[(data[0] & 0x7f) % nprov];
	stream = (data[0] & 0x80) != 0;
	status = statuses[data[1] % (sizeof statuses / sizeof statuses[0])];
	prov_result_init(&r);
	provider_read(p, stream, (const char *)data + 2, size - 2, status, &r);
	FUZZ_ASSERT(r.text.data == NULL ? r.text.len == 0 : strlen(r.text.data) <= r.text.len);
	FUZZ_ASSERT(r.usage.in >= -1 && r.usage.out >= -1);
	FUZZ_ASSERT(memchr(r.error, '\0', sizeof r.error) != NULL);
	FUZZ_ASSERT(memchr(r.finish, '\0', sizeof r.finish) != NULL);
	FUZZ_ASSERT(!r.stream_error || stream);
	FUZZ_ASSERT(!r.stream_as_json || stream);
	prov_result_free(&r);
	if (p->parse_count != NULL) {
		cJSON *j = cJSON_ParseWithLength((const char *)data + 2, size - 2);
		int64_t tokens = -7;

		if (j != NULL) {
			if (p->parse_count(j, &tokens) == 0)
				FUZZ_ASSERT(tokens >= 0);
			cJSON_Delete(j);
		}
	}
	return 0;
}
