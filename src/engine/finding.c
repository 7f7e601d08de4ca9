/*
 * finding.c: the registry of findings (finding.h). One row per code: what a
 * finding shows, what the vendor should do, which questionnaire answers it
 * disproves and the controls it bears on. The wording here is what SARIF
 * rules, reports, OSCAL and the TUI print; the man page's table is checked
 * against it by a test.
 */
#include "config.h"

#include <string.h>

#include "finding.h"

#define E(name) F_##name, #name
#define L(...) (const char *const[]){ __VA_ARGS__, NULL }

static const struct finding_info registry[F_COUNT] = {
	[F_LEAK_CROSS_TENANT] = {
		E(LEAK_CROSS_TENANT), SEV_CRITICAL,
		"A response carried another tenant's canary",
		"Text from another customer's prompt reached this customer: tenant isolation failed in "
		"the serving stack (KV cache pages, prefix cache or batching).",
		"Stop serving the affected deployment, find the shared state (stale KV pages, a "
		"cross-tenant prefix cache, a placeholder that reads unowned pages), notify affected "
		"customers, and add a content-inspecting canary test to every release.",
		L("kv_cache_scope", "kv_pages_cleared", "kv_pages_exposed", "kv_transfer_checked"),
		L("SC-4", "AC-4", "SC-39", "SI-4"),
		L("164.312(a)(1)", "164.308(a)(1)(ii)(A)", "164.308(a)(6)(ii)"),
		L("MEASURE 2.7", "MEASURE 2.10", "MANAGE 4.1"),
	},
	[F_PLACEHOLDER_SUBSTITUTION] = {
		E(PLACEHOLDER_SUBSTITUTION), SEV_CRITICAL,
		"A prompt was replaced by a placeholder and answered with HTTP 200",
		"The model did not read the prompt that was sent: an answer without any of the prompt's own "
		"nonces was built from content the prompt did not contain (other requests' canaries), or, "
		"from a model known to repeat its nonces, the prompt was reported as a handful of tokens. "
		"A capacity limit degraded silently instead of failing closed.",
		"Refuse requests that do not fit the KV pool with a visible error; check the configured "
		"context against the cache capacity on every node after every change.",
		L("prompt_integrity", "errors_are_errors", "over_limit_behaviour", "kv_pages_cleared", "kv_pages_exposed",
		    "context_capacity_check", "kv_transfer_checked", "guaranteed_context_tokens"),
		L("SI-10", "SC-4", "SI-7", "SC-5"),
		L("164.312(c)(1)", "164.312(a)(1)"),
		L("MEASURE 2.5", "MEASURE 2.7", "MANAGE 2.4"),
	},
	[F_LEAK_CROSS_REQUEST] = {
		E(LEAK_CROSS_REQUEST), SEV_HIGH,
		"A response carried a canary of another request of the same tenant",
		"Content from an earlier or concurrent request of the same customer came back: cache "
		"state is reused between requests.",
		"Bind KV pages and cached prefixes to the request that wrote them; test with canaries.",
		L("kv_pages_cleared", "kv_pages_exposed"),
		L("SC-4", "SI-4"),
		L("164.312(a)(1)"),
		L("MEASURE 2.7"),
	},
	[F_OVERSIZE_ACCEPTED] = {
		E(OVERSIZE_ACCEPTED), SEV_HIGH,
		"A prompt above the advertised context was accepted",
		"A request over the advertised context length got a 2xx instead of a refusal: the limit "
		"is not enforced where it is advertised.",
		"Reject requests over the context length with a documented 4xx error before they reach "
		"the engine.",
		L("over_limit_behaviour", "errors_are_errors", "advertised_context_tokens"),
		L("SI-10", "SC-5"),
		L("164.312(c)(1)"),
		L("MEASURE 2.5", "MEASURE 2.7"),
	},
	[F_SILENT_TRUNCATION] = {
		E(SILENT_TRUNCATION), SEV_HIGH,
		"An accepted prompt lost content without saying so",
		"A prompt within the advertised context was answered, but content was lost: a nonce "
		"missing, or usage far below what was sent, with nothing in the response saying so.",
		"Fail closed: refuse what does not fit, or say in the response how much was dropped.",
		L("prompt_integrity", "over_limit_behaviour", "truncation_signalled",
		    "guaranteed_context_tokens"),
		L("SI-10", "SI-7"),
		L("164.312(c)(1)"),
		L("MEASURE 2.5"),
	},
	[F_KV_POOL_BELOW_CONTEXT] = {
		E(KV_POOL_BELOW_CONTEXT), SEV_HIGH,
		"A node's engine cannot hold the advertised context in one request",
		"The running engine's own status says one request can hold fewer tokens than the "
		"endpoint advertises: its KV cache pool, its per-slot context or its maximum total "
		"tokens is below the advertised context. A prompt near the advertised size then has no "
		"room; where the engine does not fail closed it is cut or substituted. Raised critical "
		"when the node runs disaggregated prefill/decode, where KV pages are transferred "
		"between nodes.",
		"Size the KV cache pool (and slots) for the advertised context on every node, or "
		"advertise what every node holds; check it from the running engine after every change.",
		L("context_capacity_check", "guaranteed_context_tokens", "advertised_context_tokens"),
		L("SC-5", "CM-6", "SI-10"),
		L("164.308(a)(7)(ii)(B)", "164.312(c)(1)"),
		L("MEASURE 2.5", "MANAGE 2.4"),
		.worst = SEV_CRITICAL,
	},
	[F_ENGINE_VERSION_AFFECTED] = {
		E(ENGINE_VERSION_AFFECTED), SEV_HIGH,
		"A node runs an engine version an advisory names as affected",
		"The version the engine reports falls in an advisory's affected range (OSV): the "
		"advisory's flaw is present on that node until it is upgraded.",
		"Upgrade every node to a fixed version; track the engine's advisories.",
		L("kv_transfer_checked"),
		L("SI-2", "RA-5"),
		L("164.308(a)(1)(ii)(B)"),
		L("MANAGE 4.1"),
	},
	[F_ENGINE_NODES_DIFFER] = {
		E(ENGINE_NODES_DIFFER), SEV_MEDIUM,
		"Nodes of one endpoint run different engine configurations",
		"Nodes of one role (prefill, decode, or neither) behind one endpoint report different "
		"KV pools or contexts, or nodes report different versions: a request's capacity and "
		"behaviour depend on the node it lands on.",
		"Deploy one configuration to every node of a role, and one version to every node of "
		"an endpoint; check them on every node after every change.",
		L("context_capacity_check"),
		L("CM-2", "CM-6"),
		L("164.308(a)(8)"),
		L("MEASURE 2.5"),
	},
	[F_CAPACITY_BELOW_ADVERTISED] = {
		E(CAPACITY_BELOW_ADVERTISED), SEV_MEDIUM,
		"Prompts below the advertised context were refused for size",
		"The vendor refused, as too long, prompts under 95% of the context it advertises.",
		"Advertise the context every serving node can hold, or provision for the advertised one.",
		L("advertised_context_tokens", "guaranteed_context_tokens", "context_capacity_check"),
		L("SC-5", "CP-2(2)"),
		L("164.308(a)(7)(ii)(B)"),
		L("MEASURE 2.5"),
	},
	[F_ERROR_IN_200] = {
		E(ERROR_IN_200), SEV_MEDIUM,
		"An error was returned with HTTP status 200",
		"The status said success while the body was an error: clients that check the status "
		"take a failure for an answer.",
		"Return errors with an error status and a documented body.",
		L("errors_are_errors"),
		L("SI-11", "SI-10"),
		L("164.312(c)(1)"),
		L("MEASURE 2.5"),
	},
	[F_PREFIX_CACHE_CONTENT_RECOVERED] = {
		E(PREFIX_CACHE_CONTENT_RECOVERED), SEV_CRITICAL,
		"Another organisation recovered a planted secret from the prompt cache",
		"A key of another organisation read a random secret aivet planted in one tenant's prompt, "
		"one unit at a time, from the cached-token counts its own guesses reported: a shared "
		"prompt-prefix cache discloses the content of other customers' prompts, not only their "
		"timing.",
		"Key prefix caches by tenant (include the account in the cache key), or stop reporting "
		"cache hits across accounts; treat prompts served while the cache was shared as disclosed "
		"and assess the breach.",
		L("kv_cache_scope"),
		L("SC-4", "SC-31", "AC-4"),
		L("164.312(a)(1)", "164.308(a)(6)(ii)"),
		L("MEASURE 2.7", "MEASURE 2.10", "MANAGE 4.1"),
	},
	[F_MALFORMED_ACCEPTED] = {
		E(MALFORMED_ACCEPTED), SEV_MEDIUM,
		"A malformed request was accepted",
		"A request that is not valid JSON, or lacks a required field, got a 2xx.",
		"Validate requests and refuse invalid ones with a 4xx.",
		L("errors_are_errors"),
		L("SI-10"),
		L("164.312(c)(1)"),
		L("MEASURE 2.5"),
	},
	[F_PREFIX_CACHE_SHARED_ACROSS_TENANTS] = {
		E(PREFIX_CACHE_SHARED_ACROSS_TENANTS), SEV_MEDIUM,
		"The prompt-prefix cache is shared across tenants",
		"A tenant's first token came significantly sooner when another tenant had just sent the "
		"same opening: cached prefixes are shared, a timing side channel between customers.",
		"Key prefix caches by tenant (include the account in the cache key).",
		L("kv_cache_scope"),
		L("SC-4", "SC-31"),
		L("164.312(a)(1)"),
		L("MEASURE 2.7", "MEASURE 2.10"),
	},
	[F_USAGE_ANOMALY] = {
		E(USAGE_ANOMALY), SEV_MEDIUM,
		"Reported usage contradicts what was sent",
		"The token usage the vendor reported contradicts the words sent (under half a token per "
		"word, or more than any tokenizer makes of them). It is never a reason to grow prompts, "
		"and not a substitution while the answer repeated the prompt's own nonces: billing and "
		"any limit computed from usage cannot be trusted.",
		"Report usage as the tokenizer counted the prompt; fix the accounting path.",
		L("errors_are_errors"),
		L("AU-10", "SI-7"),
		L("164.312(b)"),
		L("MEASURE 2.5"),
	},
	[F_LOAD_BREAKS_OTHER_TENANT] = {
		E(LOAD_BREAKS_OTHER_TENANT), SEV_MEDIUM,
		"One tenant's load broke another tenant's valid requests",
		"Valid, in-range requests of one tenant failed (5xx or an error inside a stream) while "
		"another tenant's near-limit prompts were in flight, though the same tenant's requests "
		"were answered without that load: availability is not isolated.",
		"Isolate capacity per tenant (admission control, queueing, per-tenant limits) so one "
		"customer's load is refused or queued, never failing another's requests.",
		L("cross_tenant_batching"),
		L("SC-5", "SC-6"),
		L("164.308(a)(7)(i)", "164.312(a)(1)"),
		L("MEASURE 2.7", "MANAGE 2.4"),
	},
	[F_STREAM_ERROR_AFTER_200] = {
		E(STREAM_ERROR_AFTER_200), SEV_LOW,
		"A stream that began with HTTP 200 ended in an error",
		"A streamed response started with 200 and ended in an error event: a client that only "
		"checks the status keeps a partial answer.",
		"Document in-stream errors; refuse before streaming what is known to fail.",
		L("errors_are_errors"),
		L("SI-11"),
		L("164.312(c)(1)"),
		L("MEASURE 2.5"),
	},
	[F_SERVER_ERROR_ON_BAD_INPUT] = {
		E(SERVER_ERROR_ON_BAD_INPUT), SEV_LOW,
		"A client error was answered with a 5xx",
		"Malformed input made the server fail instead of refusing it.",
		"Validate input before it reaches the engine; answer a client's mistake with a 4xx.",
		L("errors_are_errors"),
		L("SI-10", "SI-11"),
		L("164.312(c)(1)"),
		L("MEASURE 2.5"),
	},
	[F_USAGE_MISSING] = {
		E(USAGE_MISSING), SEV_INFO,
		"The response reported no token usage where usage would have decided",
		"Without usage, aivet sized prompts by bounds and could not compare what was read with "
		"what was sent.",
		"Report token usage in every response (and in the final chunk of a stream).",
		L(NULL),
		L("AU-3"),
		L("164.312(b)"),
		L("MEASURE 2.5"),
	},
	[F_CLAIM_CONTRADICTED] = {
		E(CLAIM_CONTRADICTED), SEV_HIGH,
		"A vendor's answer is contradicted by the evidence",
		"The vendor's questionnaire answer asserts a behaviour that the probes' findings or "
		"measurements disprove on one of its endpoints.",
		"Correct the answer, or fix the service so that it behaves as answered, and re-test.",
		L(NULL),
		L("SA-9", "CA-2", "SR-6"),
		L("164.308(b)(1)", "164.314(a)(1)"),
		L("GOVERN 6.1", "MAP 4.1"),
	},
};

const struct finding_info *
finding_info(enum finding_code c)
{
	return (unsigned)c < F_COUNT ? &registry[c] : NULL;
}

const struct finding_info *
finding_lookup(const char *code)
{
	for (int i = 0; code != NULL && i < F_COUNT; i++)
		if (strcmp(registry[i].code, code) == 0)
			return &registry[i];
	return NULL;
}

enum severity
finding_worst(const struct finding_info *f)
{
	return f->worst > f->severity ? f->worst : f->severity;
}

int
finding_contradicts(const struct finding_info *f, const char *question_id)
{
	for (size_t i = 0; f != NULL && f->contradicts[i] != NULL; i++)
		if (strcmp(f->contradicts[i], question_id) == 0)
			return 1;
	return 0;
}
