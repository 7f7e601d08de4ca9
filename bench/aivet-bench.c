/*
 * aivet-bench.c: runs one part of aivet in isolation, for the scripts in
 * bench/ that compare it with a standard tool in the same run.
 *
 *   aivet-bench engine URL N CONCURRENCY DIR
 *     N small canary-bearing chat requests (OpenAI adapter, bearer key from
 *     $BENCH_KEY) through the probe engine's HTTP layer at CONCURRENCY,
 *     every response scanned for every canary of the batch. Each request
 *     body is also written to DIR/body-I.json, so that curl can send the
 *     same bytes. Prints "seconds S ok N canaries_seen C".
 *   aivet-bench scan FILE CANARIES
 *     Registers each line of CANARIES and scans FILE for all of them in
 *     one pass. Prints "seconds S bytes B hits H".
 */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sodium.h>

#include "aivet/domain.h"
#include "canary.h"
#include "provider.h"

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct engine_ctx {
	struct endpoint ep;
	const struct provider *prov;
	struct prompt_recipe *recipes;
	struct canary_set *canaries;
	struct buf *bodies;           /* kept to be written after the timed run */
	const char *key, *dir;
	size_t ok, seen;
};

static int
prepare(void *user, size_t i, struct http_req *req)
{
	struct engine_ctx *c = user;
	struct buf prompt;
	struct prov_chat chat = { 0 };
	struct aerr err = { 0 };

	buf_init(&prompt);
	prompt_build(&c->recipes[i], &prompt);
	chat.model = c->ep.model;
	chat.prompt = prompt.data;
	chat.prompt_len = prompt.len;
	chat.max_tokens = 32;
	if (c->prov->build_chat(&c->ep, &chat, req, &err) != 0 ||
	    c->prov->auth(&c->ep, c->key, req, &err) != 0)
		die("aivet-bench: %s", err.msg);
	buf_free(&prompt);
	/* As the probe engine does: no 100-continue round trip. */
	http_req_header(req, "Expect", "", 0);
	buf_add(&c->bodies[i], req->body, req->body_len);
	return 0;
}

static void
on_hit(void *arg, const char *nonce, int64_t owner, int tenant)
{
	(void)nonce, (void)owner, (void)tenant;
	((struct engine_ctx *)arg)->seen++;
}

static void
done(void *user, size_t i, const struct http_req *req, const struct http_resp *resp, int will_retry)
{
	struct engine_ctx *c = user;
	struct prov_result r;

	(void)i, (void)req;
	if (will_retry)
		return;
	prov_result_init(&r);
	provider_read(c->prov, 0, resp->body.data ? resp->body.data : "", resp->body.len, resp->status, &r);
	if (resp->status == 200 && r.parsed)
		c->ok++;
	canary_scan(c->canaries, r.text.data ? r.text.data : "", r.text.len, on_hit, c);
	prov_result_free(&r);
}

static int
engine(int argc, char **argv)
{
	struct engine_ctx c = { 0 };
	struct http_opts o;
	struct http_engine *e;
	struct aerr err = { 0 };
	size_t n = (size_t)atol(argv[3]);
	double t0, t1;

	if (argc != 6)
		return 2;
	c.ep.api = xstrdup("openai");
	c.ep.url = xstrdup(argv[2]);
	c.ep.model = xstrdup("aivet-sim-1");
	c.ep.context_tokens = 131072;
	c.prov = provider_find("openai");
	c.key = getenv("BENCH_KEY") ? getenv("BENCH_KEY") : "bench-key";
	c.dir = argv[5];
	c.recipes = xcalloc(n, sizeof *c.recipes);
	c.canaries = canary_set_new();
	c.bodies = xcalloc(n, sizeof *c.bodies);
	for (size_t i = 0; i < n; i++) {
		prompt_recipe_new(&c.recipes[i], 20);
		for (int k = 0; k < 3; k++)
			canary_add(c.canaries, c.recipes[i].nonces[k], (int64_t)i, 0);
	}
	http_opts_default(&o);
	o.concurrency = atoi(argv[4]);
	e = http_engine_new(&o);
	t0 = now_s();
	if (http_run(e, n, prepare, done, &c, &err) != 0)
		die("aivet-bench: %s", err.msg);
	t1 = now_s();
	for (size_t i = 0; i < n; i++) {
		char *path = xasprintf("%s/body-%zu.json", c.dir, i);

		if (write_file_atomic(path, c.bodies[i].data, c.bodies[i].len, 0600, &err) != 0)
			die("aivet-bench: %s", err.msg);
		free(path);
		buf_free(&c.bodies[i]);
	}
	free(c.bodies);
	printf("seconds %.3f ok %zu canaries_seen %zu\n", t1 - t0, c.ok, c.seen);
	http_engine_free(e);
	canary_set_free(c.canaries);
	free(c.recipes);
	endpoint_free(&c.ep);
	return c.ok == n ? 0 : 1;
}

static int
scan(int argc, char **argv)
{
	struct canary_set *s = canary_set_new();
	struct buf list;
	struct aerr err = { 0 };
	struct stat sb;
	size_t hits;
	double t0, t1;
	char *p, *data;
	int fd;

	if (argc != 4)
		return 2;
	if (read_file(argv[3], (size_t)1 << 30, &list, &err) != 0)
		die("aivet-bench: %s", err.msg);
	for (p = list.data; *p != '\0';) {
		char *nl = strchr(p, '\n');

		if (nl != NULL)
			*nl = '\0';
		if (*p != '\0')
			canary_add(s, p, 0, 0);
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	if ((fd = open(argv[2], O_RDONLY)) < 0 || fstat(fd, &sb) != 0)
		die("aivet-bench: cannot open %s", argv[2]);
	data = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (data == MAP_FAILED)
		die("aivet-bench: cannot map %s", argv[2]);
	t0 = now_s();
	hits = canary_scan(s, data, (size_t)sb.st_size, NULL, NULL);
	t1 = now_s();
	printf("seconds %.3f bytes %lld hits %zu\n", t1 - t0, (long long)sb.st_size, hits);
	munmap(data, (size_t)sb.st_size);
	close(fd);
	canary_set_free(s);
	buf_free(&list);
	return 0;
}

int
main(int argc, char **argv)
{
	if (sodium_init() < 0)
		die("cannot initialise libsodium");
	if (argc >= 2 && strcmp(argv[1], "engine") == 0)
		return engine(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "scan") == 0)
		return scan(argc, argv);
	fprintf(stderr, "usage: aivet-bench engine URL N CONCURRENCY DIR | scan FILE CANARIES\n");
	return 2;
}
