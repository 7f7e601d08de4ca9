/*
 * test-hard.c: regression tests for what fuzzing and hostile-vendor tests
 * found, kept as plain unit tests so that they fail under any compiler
 * (the fuzz corpora replay the raw inputs as well).
 */
#include "config.h"

#include <string.h>

#include "aivet/domain.h"
#include "provider.h"
#include "../lib/tap.h"

static void
test_usage_numbers(void)
{
	static const struct { const char *json; int64_t want; } cases[] = {
		{ "{\"usage\":{\"prompt_tokens\":12}}", 12 },
		{ "{\"usage\":{\"prompt_tokens\":0}}", 0 },
		{ "{\"usage\":{\"prompt_tokens\":-3}}", -1 },
		{ "{\"usage\":{\"prompt_tokens\":1e97}}", -1 },
		{ "{\"usage\":{\"prompt_tokens\":9007199254740992}}", 9007199254740992LL },
		{ "{\"usage\":{\"prompt_tokens\":9007199254740994}}", -1 },
		{ "{\"usage\":{\"prompt_tokens\":\"12\"}}", -1 },
		{ "{\"usage\":null}", -1 },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cJSON *j = cJSON_Parse(cases[i].json);

		is_int(json_path_int(j, "usage.prompt_tokens"), cases[i].want,
		    "usage from %s", cases[i].json);
		cJSON_Delete(j);
	}
}

int
main(void)
{
	test_usage_numbers();
	return tap_done();
}
