/*
 * credref.c: credential references. aivet stores where a key is
 * ("env:VAR" or "file:PATH"), never the key. Resolving one reads the secret
 * into sodium_malloc'ed memory that is wiped when freed.
 *
 * On a shared database a reference is someone's word about where a secret
 * is, and a probe run sends the secret to a vendor: so a run reads a
 * reference only when its runner set it (the actor of the audit entry that
 * set it last) or allowed it, as set by that writer, in their own
 * configuration (a worker relaying a colleague's key: only where that
 * colleague set the reference and set or confirmed the URL), and aivet's own
 * secrets (key passphrase, database login, signing keys, the database) are
 * never read, whoever asked.
 *
 * The credential rows themselves (label, reference, organisation) are read
 * here too, by one function every caller uses (credential_list_load).
 *
 * A reference is also bound to the origin (scheme, host, port, path prefix)
 * of the endpoint's URL when its writer set it, read from the same audit
 * entries: when someone else has moved the URL outside that origin since, the
 * secret is not read until the writer confirms the new URL.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sodium.h>

#include "aivet/vendors.h"

#define MAX_SECRET 65536

/* A secret goes into an HTTP header: any control character (CR and LF
 * above all, which start a new header) or DEL is refused. */
static int
has_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] == 0x7f)
			return 1;
	return 0;
}

static int
valid_env_name(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

int
credref_check(const char *ref, struct aerr *err)
{
	if (strncmp(ref, "env:", 4) == 0) {
		if (!valid_env_name(ref + 4))
			return aerr_set(err, AV_USAGE, "credential reference 'env:...' needs an environment "
			    "variable name ([A-Za-z_][A-Za-z0-9_]*)");
		return 0;
	}
	if (strncmp(ref, "file:", 5) == 0) {
		if (ref[5] == '\0')
			return aerr_set(err, AV_USAGE, "credential reference 'file:' needs a path");
		return 0;
	}
	/* Do not echo the value: it may be the secret itself. */
	return aerr_set(err, AV_USAGE, "a credential must be a reference, env:VAR or file:PATH; "
	    "a literal secret is refused and was not stored");
}

/* True when st is a file that holds one of aivet's own secrets outside its
 * directories: the key passphrase file, libpq's password and service files
 * and its SSL key (where the variables put them, else their defaults). */
static int
own_secret_file(const struct stat *st)
{
	static const struct { const char *env, *home_default; } files[] = {
		{ "AIVET_KEY_PASSWORD_FILE", NULL }, { "PGPASSFILE", ".pgpass" },
		{ "PGSERVICEFILE", ".pg_service.conf" }, { "PGSSLKEY", ".postgresql/postgresql.key" },
	};
	const char *home = getenv("HOME");
	int found = 0;

	for (size_t i = 0; i < sizeof files / sizeof files[0] && !found; i++) {
		const char *v = getenv(files[i].env);
		char *p = NULL;
		struct stat o;

		if (v != NULL && *v != '\0')
			p = xstrdup(v);
		else if (files[i].home_default != NULL && home != NULL && *home != '\0')
			p = xasprintf("%s/%s", home, files[i].home_default);
		if (p != NULL && stat(p, &o) == 0 && o.st_dev == st->st_dev && o.st_ino == st->st_ino)
			found = 1;
		free(p);
	}
	return found;
}

/* True when st is one of aivet's own files: anything in its configuration
 * directory (the evidence key, the signing keys) or its data directory (the
 * database and its journals). Compared by device and inode, so another name
 * for the same file (a hard link, a symlink, "dir/../") is caught too. */
static int
own_file(const struct stat *st)
{
	char *conf = aivet_dir(AIVET_CONFIG_DIR), *keys = xasprintf("%s/keys", conf);
	char *data = aivet_dir(AIVET_DATA_DIR), *dbdir = NULL, *slash;
	const char *dirs[4], *dbbase = NULL, *dbp = getenv("AIVET_DB");
	int found, nd = 0;

	dirs[nd++] = keys, dirs[nd++] = conf, dirs[nd++] = data;
	if (dbp != NULL && strncmp(dbp, "sqlite:", 7) == 0)
		dbp += 7;
	if (dbp != NULL && *dbp != '\0' && !db_spec_is_pg(dbp)) {
		/* Only the database and its journals (NAME-wal, NAME-journal) there. */
		dbdir = xstrdup(dbp);
		slash = strrchr(dbdir, '/');
		if (slash != NULL)
			*slash = '\0', dbbase = slash + 1, dirs[nd++] = dbdir;
		else
			dbbase = dbp, dirs[nd++] = ".";
	}
	found = own_secret_file(st);
	for (int i = 0; i < nd && !found; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;

		while (d != NULL && !found && (e = readdir(d)) != NULL) {
			struct stat o;
			char *p;

			if (i == 3 && strncmp(e->d_name, dbbase, strlen(dbbase)) != 0)
				continue;
			p = xasprintf("%s/%s", dirs[i], e->d_name);
			if (stat(p, &o) == 0 && o.st_dev == st->st_dev && o.st_ino == st->st_ino)
				found = 1;
			free(p);
		}
		if (d != NULL)
			closedir(d);
	}
	free(keys);
	free(conf);
	free(data);
	free(dbdir);
	return found;
}

/* Reads a file: credential with the checks a secret deserves: a regular
 * file (no FIFO to hang on, no device to read forever), private to its
 * owner, small, and not one of aivet's own keys or databases. */
static int
read_secret_file(const char *ref, struct buf *b, struct aerr *err)
{
	const char *path = ref + 5;
	struct stat st;
	ssize_t n;
	struct aerr e = { 0 };
	int fd = open_regular(path, 0, &e);

	buf_init(b);
	if (fd < 0)
		return aerr_set(err, e.code, "credential file:%s", e.msg);
	if (fstat(fd, &st) != 0) {
		close(fd);
		return aerr_set(err, AV_RUNTIME, "credential %s: %s", ref, strerror(errno));
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		close(fd);
		return aerr_set(err, AV_USAGE, "credential %s: the file is open to group or others "
		    "(mode %04o); chmod 600 it", ref, (unsigned)(st.st_mode & 07777));
	}
	if (own_file(&st)) {
		close(fd);
		return aerr_set(err, AV_USAGE, "credential %s: that is one of aivet's own key or "
		    "database files, never a vendor's key", ref);
	}
	if (st.st_size > (off_t)MAX_SECRET) {
		close(fd);
		return aerr_set(err, AV_USAGE, "credential %s: larger than %d bytes", ref, MAX_SECRET);
	}
	b->cap = (size_t)MAX_SECRET + 2;
	b->data = xmalloc(b->cap);
	while (b->len <= (size_t)MAX_SECRET) {
		n = read(fd, b->data + b->len, (size_t)MAX_SECRET + 1 - b->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			sodium_memzero(b->data, b->cap);
			buf_free(b);
			return aerr_set(err, AV_RUNTIME, "credential %s: read error", ref);
		}
		if (n == 0)
			break;
		b->len += (size_t)n;
	}
	close(fd);
	if (b->len > (size_t)MAX_SECRET) {
		sodium_memzero(b->data, b->cap);
		buf_free(b);
		return aerr_set(err, AV_USAGE, "credential %s: larger than %d bytes", ref, MAX_SECRET);
	}
	b->data[b->len] = '\0';
	return 0;
}

/* aivet's own secrets, which no reference may read whoever wrote it: the key
 * passphrase file, the database and how to log in to it (libpq reads every
 * PG* variable: password, password file, service, SSL key). */
static int
own_env(const char *name)
{
	return strcmp(name, "AIVET_KEY_PASSWORD_FILE") == 0 || strcmp(name, "AIVET_DB") == 0 ||
	    strcmp(name, "DATABASE_URL") == 0 || strncmp(name, "PG", 2) == 0;
}

int
credref_resolve(const char *ref, char **secret, size_t *len, struct aerr *err)
{
	const char *src;
	size_t n;
	struct buf b;

	*secret = NULL;
	*len = 0;
	if (credref_check(ref, err) != 0)
		return err->code;
	if (ref[0] == 'e') {
		if (own_env(ref + 4))
			return aerr_set(err, AV_USAGE, "credential %s: that is one of aivet's own secrets "
			    "(the key passphrase or the database's login), never a vendor's key", ref);
		src = getenv(ref + 4);
		if (src == NULL || *src == '\0')
			return aerr_set(err, AV_USAGE, "credential %s: the environment variable is not set", ref);
		n = strlen(src);
		if (has_control(src, n))
			return aerr_set(err, AV_USAGE, "credential %s: the secret holds control characters "
			    "(CR, LF, ...), which would inject request headers; refused", ref);
		*secret = sodium_malloc(n + 1);
		if (*secret == NULL)
			die("out of memory");
		memcpy(*secret, src, n + 1);
		*len = n;
		return 0;
	}
	if (read_secret_file(ref, &b, err) != 0)
		return err->code;
	n = b.len;
	/* One trailing line break (and spaces an editor left) is how files end. */
	while (n > 0 && (b.data[n - 1] == '\n' || b.data[n - 1] == '\r' || b.data[n - 1] == ' '))
		n--;
	if (n == 0) {
		sodium_memzero(b.data, b.cap);
		buf_free(&b);
		return aerr_set(err, AV_USAGE, "credential %s: the file is empty", ref);
	}
	if (has_control(b.data, n)) {
		sodium_memzero(b.data, b.cap);
		buf_free(&b);
		return aerr_set(err, AV_USAGE, "credential %s: the secret holds control characters "
		    "(CR, LF, NUL, ...), which would inject request headers; refused", ref);
	}
	*secret = sodium_malloc(n + 1);
	if (*secret == NULL)
		die("out of memory");
	memcpy(*secret, b.data, n);
	(*secret)[n] = '\0';
	*len = n;
	sodium_memzero(b.data, b.cap);
	buf_free(&b);
	return 0;
}

static int
json_array_has(const cJSON *a, const char *s)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, a)
		if (cJSON_IsString(v) && strcmp(v->valuestring, s) == 0)
			return 1;
	return 0;
}

static void
set_str(char **dst, const char *src)
{
	free(*dst);
	*dst = src != NULL ? xstrdup(src) : NULL;
}

/* The engine's admin credential goes to the engine's nodes, not to the
 * endpoint's URL: the entry's node list, one URL a line, is what moves it. */
static char *
engine_nodes(const cJSON *d)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(d, "engine"), *n;
	struct buf out;

	if (e == NULL)
		return NULL;
	buf_init(&out);
	cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(e, "nodes"))
		if (cJSON_IsString(n))
			buf_printf(&out, "%s%s", out.len ? "\n" : "", n->valuestring);
	return buf_steal(&out);
}

/* Whether url is one of list's lines (list: one URL, or an engine's nodes). */
static int
url_listed(const char *list, const char *url)
{
	size_t n = strlen(url);

	for (const char *p = list; p != NULL; p = strchr(p, '\n'), p += p != NULL) {
		if (strncmp(p, url, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
			return 1;
	}
	return 0;
}

/* One audit entry about the endpoint, in order: a URL set moves the endpoint
 * (and the origin of the references its setter wrote); a reference set binds
 * it to the URL of that moment; a confirmation by the writer rebinds it.
 *
 * An entry's word that a credential was removed changes no writer: an edit
 * may remove a label and set it again, and the row that stays is what the
 * setting wrote. Who wrote a reference is read only from entries that set
 * it, and credref_binding_load checks the last one against the row. */
static void
binding_step(struct credref_binding *b, char **ref_set, const char *actor, const char *at,
    const char *action, const cJSON *d, const char *label)
{
	int engine = strcmp(label, ENGINE_CRED_LABEL) == 0;
	char *nodes = engine ? engine_nodes(d) : NULL;
	const char *url = engine ? nodes : json_get_str(d, "url"), *set;
	const cJSON *creds = cJSON_GetObjectItemCaseSensitive(d, "credentials");

	if (strcmp(action, "endpoint.confirm") == 0) {
		if (b->writer != NULL && strcmp(b->writer, actor) == 0 && json_array_has(creds, label)) {
			set_str(&b->origin_url, json_get_str(d, "origin_url"));
			b->url_by_writer = b->url != NULL && b->origin_url != NULL &&
			    url_listed(b->url, b->origin_url);
		}
		free(nodes);
		return;
	}
	if (url != NULL) {
		set_str(&b->url, url);
		set_str(&b->url_actor, actor);
		set_str(&b->url_at, at);
		b->url_by_writer = 0;
		if (b->writer != NULL && strcmp(b->writer, actor) == 0) {
			b->url_by_writer = 1;
			set_str(&b->origin_url, url);
		}
	}
	if ((set = json_get_str(creds, label)) != NULL) {
		set_str(ref_set, set);
		set_str(&b->writer, actor);
		set_str(&b->origin_url, b->url);
		b->url_by_writer = b->url_actor != NULL && strcmp(b->url_actor, actor) == 0;
	}
	free(nodes);
}

int
credref_binding_load(struct db *db, int64_t endpoint_id, const char *label, const char *ref,
    struct credref_binding *b, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT actor, at, action, details FROM audit_log "
	    "WHERE object_type = 'endpoint' AND object_id = ? AND action IN ('endpoint.add', "
	    "'endpoint.edit', 'endpoint.confirm') ORDER BY seq", "i", endpoint_id);
	char *ref_set = NULL;

	memset(b, 0, sizeof *b);
	if (st == NULL)
		return err->code;
	while (db_step(st) == DB_ROW) {
		cJSON *d = cJSON_Parse(col_text(st, 3));

		binding_step(b, &ref_set, col_text(st, 0), col_text(st, 1), col_text(st, 2), d, label);
		cJSON_Delete(d);
	}
	db_finalize(st);
	/* The stored reference is not the one the log says was set: nobody wrote it. */
	if (ref_set == NULL || strcmp(ref_set, ref) != 0) {
		set_str(&b->writer, NULL);
		set_str(&b->origin_url, NULL);
		b->url_by_writer = 0;
	}
	free(ref_set);
	return 0;
}

void
credref_binding_free(struct credref_binding *b)
{
	free(b->writer);
	free(b->origin_url);
	free(b->url);
	free(b->url_actor);
	free(b->url_at);
	memset(b, 0, sizeof *b);
}

/* Whether url lies within the origin of one of origins' lines. */
static int
url_within_any(const char *url, const char *origins)
{
	int ok = 0;

	for (const char *p = origins; p != NULL && !ok; p = strchr(p, '\n'), p += p != NULL) {
		char *one = xasprintf("%.*s", (int)strcspn(p, "\n"), p);

		ok = url_within_origin(url, one);
		free(one);
	}
	return ok;
}

/* The endpoint's VENDOR/NAME, for a refusal; NULL with err set on a database error. */
static char *
endpoint_name(struct db *db, int64_t endpoint_id, struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT v.name || '/' || e.name FROM endpoint e "
	    "JOIN vendor v ON v.id = e.vendor_id WHERE e.id = ?", "i", endpoint_id);
	char *name;

	if (st == NULL)
		return NULL;
	name = xstrdup(db_step(st) == DB_ROW ? col_text(st, 0) : "?");
	db_finalize(st);
	return name;
}

/* The secret goes only to the origin its writer wrote it for: a URL that
 * nobody set through aivet, or one set by someone else outside that origin,
 * stops the run until the writer confirms it (aivet endpoint confirm). */
static int
origin_check(struct db *db, int64_t endpoint_id, const char *url, const char *ref,
    const struct credref_binding *b, struct aerr *err)
{
	char *name, *word;
	int rc = 0;

	if (b->url != NULL && url_listed(b->url, url) &&
	    (b->writer == NULL || b->origin_url == NULL || url_within_any(url, b->origin_url)))
		return 0;
	if ((name = endpoint_name(db, endpoint_id, err)) == NULL)
		return err->code;
	word = shell_word(name);
	if (b->url == NULL || !url_listed(b->url, url))
		rc = aerr_set(err, AV_USAGE, "endpoint %s: its URL %s was set outside aivet (no audit "
		    "entry records it), so credential %s was never bound to it; nothing was sent. Set "
		    "the URL with 'aivet endpoint edit %s --url URL'", name, url, ref, word);
	else
		rc = aerr_set(err, AV_USAGE, "endpoint %s: its URL was changed by %s at %s to %s, "
		    "outside the origin %s that %s wrote credential %s for; nothing was sent. If the "
		    "secret may go there, %s confirms it: aivet endpoint confirm %s --url %s", name,
		    b->url_actor, b->url_at, url, b->origin_url, b->writer, ref, b->writer, word, url);
	free(word);
	free(name);
	return rc;
}

/* One line of credentials-allowed, comments and blanks trimmed: "REF WRITER".
 * Returns 0 with *ref and *writer pointing into line (*ref NULL for a blank
 * line), or an error naming the line. A line without a writer is refused,
 * not read as "anyone": the file says whose word the runner takes. */
static int
allowed_line(char *line, const char *path, int n, char **ref, char **writer, struct aerr *err)
{
	char *end;

	*ref = *writer = NULL;
	line[strcspn(line, "#")] = '\0';
	line += strspn(line, " \t");
	end = line + strlen(line);
	while (end > line && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	if (*line == '\0')
		return 0;
	if (strncmp(line, "env:", 4) != 0 && strncmp(line, "file:", 5) != 0)
		return aerr_set(err, AV_USAGE, "%s:%d: expected env:NAME or file:PATH (patterns "
		    "allowed) and the login of its writer", path, n);
	*ref = line;
	line += strcspn(line, " \t");
	if (*line != '\0')
		*line++ = '\0';
	line += strspn(line, " \t");
	if (*line == '\0' || line[strcspn(line, " \t")] != '\0')
		return aerr_set(err, AV_USAGE, "%s:%d: '%s' names no single writer; write '%s LOGIN', "
		    "LOGIN being who sets that reference on the endpoints whose runs may send it",
		    path, n, *ref, *ref);
	*writer = line;
	return 0;
}

/* Whether the runner's own configuration allows ref as written by writer:
 * CONFIG/credentials-allowed, one "REF WRITER" a line (REF an fnmatch pattern,
 * '*' within a path segment; WRITER a login), '#' comments. A line naming
 * ref but another writer is kept in *other ("LOGIN at PATH:N") for the
 * refusal. The file must be the runner's and writable by nobody else, or a
 * colleague could allow what they wrote. */
static int
credref_allowed(const char *ref, const char *writer, const char *path, int *allowed,
    char **other, struct aerr *err)
{
	struct stat st;
	struct buf b;
	char *line, *next, *r, *w;
	int n = 0;

	*allowed = 0;
	*other = NULL;
	if (stat(path, &st) != 0)
		return 0;
	if (st.st_uid != getuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return aerr_set(err, AV_USAGE, "%s: writable by someone else than you; chmod 600 it", path);
	if (read_file(path, 1 << 16, &b, err) != 0)
		return err->code;
	for (line = b.data; line != NULL && !*allowed; line = next) {
		n++;
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		if (allowed_line(line, path, n, &r, &w, err) != 0) {
			free(*other);
			*other = NULL;
			buf_free(&b);
			return err->code;
		}
		if (r == NULL || fnmatch(r, ref, FNM_PATHNAME) != 0)
			continue;
		if (writer != NULL && strcmp(w, writer) == 0)
			*allowed = 1;
		else if (*other == NULL)
			*other = xasprintf("%s at %s:%d", w, path, n);
	}
	buf_free(&b);
	return 0;
}

/* Why a reference someone else set is not read: nothing in the runner's file
 * names it, or the file takes it only from another writer. */
static int
refuse_allowed(const char *ref, const char *writer, const char *runner, const char *path,
    const char *other, struct aerr *err)
{
	if (writer == NULL)
		return aerr_set(err, AV_USAGE, "credential %s was set by no audited change (the row "
		    "was written outside aivet), not by you (%s); no configuration allows that; "
		    "nothing was sent. Set the reference with 'aivet endpoint edit'", ref, runner);
	if (other != NULL)
		return aerr_set(err, AV_USAGE, "credential %s was set on this endpoint by %s, not by "
		    "you (%s); your configuration allows it only as set by %s; nothing was sent",
		    ref, writer, runner, other);
	return aerr_set(err, AV_USAGE, "credential %s was set by %s, not by you (%s), and your "
	    "configuration does not allow it; nothing was sent. If you mean to send that "
	    "secret as %s sets it, add the line '%s %s' to %s", ref, writer, runner, writer, ref,
	    writer, path);
}

/* A reference the runner takes from its writer goes only to a URL that writer
 * set or confirmed: within the origin is not enough when someone else chose
 * the URL (the writer may never have seen it). */
static int
refuse_url_not_writers(struct db *db, int64_t endpoint_id, const char *ref,
    const struct credref_binding *b, struct aerr *err)
{
	char *name = endpoint_name(db, endpoint_id, err), *word;

	if (name == NULL)
		return err->code;
	word = shell_word(name);
	aerr_set(err, AV_USAGE, "endpoint %s: credential %s was set by %s, but its URL %s by %s "
	    "at %s, and %s has not confirmed it; your configuration takes %s's reference only for "
	    "a URL %s set or confirmed; nothing was sent. If the secret may go there, %s confirms "
	    "it: aivet endpoint confirm %s --url %s", name, ref, b->writer, b->url, b->url_actor,
	    b->url_at, b->writer, b->writer, b->writer, b->writer, word, b->url);
	free(word);
	free(name);
	return err->code;
}

int
credref_read(struct db *db, const char *runner, int64_t endpoint_id, const char *url,
    const char *label, const char *ref, char **secret, size_t *len, struct aerr *err)
{
	struct credref_binding b;
	char *conf, *path, *other = NULL;
	struct stat st;
	int allowed = 0, rc;

	*secret = NULL;
	*len = 0;
	if (credref_check(ref, err) != 0)
		return err->code;
	/* aivet's own secrets first: no one's word makes them a vendor's key. */
	if ((ref[0] == 'e' && own_env(ref + 4)) ||
	    (ref[0] == 'f' && stat(ref + 5, &st) == 0 && own_file(&st)))
		return credref_resolve(ref, secret, len, err);
	if (credref_binding_load(db, endpoint_id, label, ref, &b, err) != 0)
		return err->code;
	if ((rc = origin_check(db, endpoint_id, url, ref, &b, err)) != 0 ||
	    (b.writer != NULL && strcmp(b.writer, runner) == 0)) {
		credref_binding_free(&b);
		return rc != 0 ? rc : credref_resolve(ref, secret, len, err);
	}
	/* Someone else's reference, whoever queued the run: the runner's file must
	 * name it with the writer the log shows for it on this endpoint, and that
	 * writer must have set or confirmed the URL. */
	conf = aivet_dir(AIVET_CONFIG_DIR);
	path = xasprintf("%s/credentials-allowed", conf);
	free(conf);
	rc = credref_allowed(ref, b.writer, path, &allowed, &other, err);
	if (rc == 0 && !allowed)
		rc = refuse_allowed(ref, b.writer, runner, path, other, err);
	if (rc == 0 && !b.url_by_writer)
		rc = refuse_url_not_writers(db, endpoint_id, ref, &b, err);
	credref_binding_free(&b);
	free(other);
	free(path);
	return rc != 0 ? rc : credref_resolve(ref, secret, len, err);
}

void
credref_free(char *secret, size_t len)
{
	(void)len;
	if (secret != NULL)
		sodium_free(secret);   /* sodium_free wipes before releasing */
}

int
credential_list_load(struct db *db, int64_t endpoint_id, struct credential **out, size_t *n,
    struct aerr *err)
{
	struct db_stmt *st = db_prepare(db, err, "SELECT id, label, ref, org FROM credential WHERE "
	    "endpoint_id = ? ORDER BY label", "i", endpoint_id);
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (st == NULL)
		return err->code;
	while ((rc = db_step(st)) == DB_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 4;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		(*out)[(*n)++] = (struct credential){ db_col_int64(st, 0), xstrdup(col_text(st, 1)),
		    xstrdup(col_text(st, 2)),
		    db_col_type(st, 3) == DB_NULL ? NULL : xstrdup(col_text(st, 3)) };
	}
	db_finalize(st);
	if (rc != DB_DONE) {
		credential_list_free(*out, *n);
		*out = NULL;
		*n = 0;
		return db_err(db, err, "credential");
	}
	return 0;
}

void
credential_list_free(struct credential *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].label);
		free(c[i].ref);
		free(c[i].org);
	}
	free(c);
}
