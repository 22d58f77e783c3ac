/* fault_run.c - fails the n-th allocation or SQLite call of a scenario, for every n, and checks what follows */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "campaign_check.h"
#include "campaign_deliver.h"
#include "campaign_read.h"
#include "campaigns.h"
#include "describe_doc.h"
#include "events.h"
#include "experiment.h"
#include "export_csv.h"
#include "import.h"
#include "import_store.h"
#include "jsonlimit.h"
#include "params.h"
#include "registry.h"
#include "runlog.h"
#include "store.h"
#include "topo.h"

/*
 * What fails: alloc, our objects' allocations (their calls reach the
 * __wrap_ functions: the link wraps them) and jansson's (through the
 * allocator it is given below); sql, the SQLite calls our objects make;
 * sqlmem, SQLite's own allocations, which reach us as those calls'
 * errors (SQLITE_NOMEM), so they are sampled rather than all tried. Only
 * the thread that runs the scenario counts: the store's checkpointer
 * thread would make the count depend on timing.
 */
enum fault_kind { FAULT_ALLOC, FAULT_SQL, FAULT_SQLITE_MEM, NKINDS };
static const char *const kind_names[] = {"alloc", "sql", "sqlmem"};

static int armed;
static enum fault_kind kind;
static unsigned long fail_at, counted;
static int injected;
static pthread_t owner;

static int should_fail(enum fault_kind k)
{
	if (!armed || k != kind || !pthread_equal(pthread_self(), owner))
		return 0;
	if (++counted != fail_at)
		return 0;
	injected++;
	return 1;
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
int __real_vasprintf(char **s, const char *fmt, va_list ap);
int __real_sqlite3_prepare_v2(sqlite3 *db, const char *sql, int n,
			      sqlite3_stmt **s, const char **tail);
int __real_sqlite3_step(sqlite3_stmt *s);
int __real_sqlite3_exec(sqlite3 *db, const char *sql,
			int (*cb)(void *, int, char **, char **), void *arg,
			char **msg);

void *__wrap_malloc(size_t n)
{
	if (should_fail(FAULT_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	if (should_fail(FAULT_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	if (should_fail(FAULT_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	if (should_fail(FAULT_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
	if (should_fail(FAULT_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_strndup(s, n);
}

int __wrap_vasprintf(char **s, const char *fmt, va_list ap)
{
	if (should_fail(FAULT_ALLOC)) {
		errno = ENOMEM;
		return -1;
	}
	return __real_vasprintf(s, fmt, ap);
}

/* an I/O error on odd n, a full disk on even ones: both paths are taken */
static int sql_error(void)
{
	return fail_at % 2 ? SQLITE_IOERR : SQLITE_FULL;
}

int __wrap_sqlite3_prepare_v2(sqlite3 *db, const char *sql, int n,
			      sqlite3_stmt **s, const char **tail)
{
	if (should_fail(FAULT_SQL)) {
		*s = NULL;
		return sql_error();
	}
	return __real_sqlite3_prepare_v2(db, sql, n, s, tail);
}

int __wrap_sqlite3_step(sqlite3_stmt *s)
{
	if (should_fail(FAULT_SQL))
		return sql_error();
	return __real_sqlite3_step(s);
}

int __wrap_sqlite3_exec(sqlite3 *db, const char *sql,
			int (*cb)(void *, int, char **, char **), void *arg,
			char **msg)
{
	if (should_fail(FAULT_SQL)) {
		if (msg)
			*msg = NULL;
		return sql_error();
	}
	return __real_sqlite3_exec(db, sql, cb, arg, msg);
}

/*
 * jansson's text functions, as our objects call them: one that returns
 * success although an allocation failed inside it has swallowed the
 * failure (its lexer and its dump of an object key ignore a buffer that
 * could not grow), and what follows is jansson's doing, not ours.
 */
static int swallowed;
/* inside one of them: an assertion of jansson's that fails is its own */
static volatile sig_atomic_t in_lib;

char *__real_json_dumps(const json_t *j, size_t flags);
json_t *__real_json_loadb(const char *b, size_t n, size_t flags,
			  json_error_t *e);
json_t *__real_json_loads(const char *t, size_t flags, json_error_t *e);
json_t *__real_json_copy(json_t *j);
json_t *__real_json_deep_copy(const json_t *j);

#define LIB_CALL(call)                                                         \
	do {                                                                   \
		int before = injected;                                         \
		in_lib++;                                                      \
		r = call;                                                      \
		in_lib--;                                                      \
		if (r && injected != before)                                   \
			swallowed = 1;                                         \
	} while (0)

char *__wrap_json_dumps(const json_t *j, size_t flags)
{
	char *r;

	LIB_CALL(__real_json_dumps(j, flags));
	return r;
}

json_t *__wrap_json_loadb(const char *b, size_t n, size_t flags,
			  json_error_t *e)
{
	json_t *r;

	LIB_CALL(__real_json_loadb(b, n, flags, e));
	return r;
}

json_t *__wrap_json_loads(const char *t, size_t flags, json_error_t *e)
{
	json_t *r;

	LIB_CALL(__real_json_loads(t, flags, e));
	return r;
}

json_t *__wrap_json_copy(json_t *j)
{
	json_t *r;

	LIB_CALL(__real_json_copy(j));
	return r;
}

json_t *__wrap_json_deep_copy(const json_t *j)
{
	json_t *r;

	LIB_CALL(__real_json_deep_copy(j));
	return r;
}

/* FAULTS_STRICT=1: what jansson swallowed counts as a problem too */
static int strict;

static void *json_alloc(size_t n)
{
	if (should_fail(FAULT_ALLOC))
		return NULL;
	return __real_malloc(n);
}

static sqlite3_mem_methods sqlite_mem;

static void *sqlite_malloc(int n)
{
	if (should_fail(FAULT_SQLITE_MEM))
		return NULL;
	return sqlite_mem.xMalloc(n);
}

static void *sqlite_realloc(void *p, int n)
{
	if (should_fail(FAULT_SQLITE_MEM))
		return NULL;
	return sqlite_mem.xRealloc(p, n);
}

static void hook_libraries(void)
{
	sqlite3_mem_methods m;

	json_set_alloc_funcs(json_alloc, free);
	if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &sqlite_mem) != SQLITE_OK)
		abort();
	m = sqlite_mem;
	m.xMalloc = sqlite_malloc;
	m.xRealloc = sqlite_realloc;
	if (sqlite3_config(SQLITE_CONFIG_MALLOC, &m) != SQLITE_OK)
		abort();
}

/* What one child found, sent to the parent through a pipe. */
enum outcome { OUT_OK, OUT_REPORTED, OUT_WRONG };

struct result {
	unsigned long calls;
	int injected;
	int swallowed; /* by jansson: see __wrap_json_dumps */
	int lib_abort; /* jansson aborted on a failed allocation */
	int outcome;
	uint64_t digest;
	char note[256];
};

static struct result res;

static void arm(void)
{
	armed = 1;
}

static void disarm(void)
{
	armed = 0;
}

/* The first failure a scenario met; it stops there. */
static void reported(const char *what, const char *msg)
{
	res.outcome = OUT_REPORTED;
	snprintf(res.note, sizeof(res.note), "%s: %s", what,
		 msg && *msg ? msg : "(no message)");
}

__attribute__((format(printf, 1, 2))) static void wrong(const char *fmt, ...)
{
	va_list ap;

	res.outcome = OUT_WRONG;
	va_start(ap, fmt);
	vsnprintf(res.note, sizeof(res.note), fmt, ap);
	va_end(ap);
}

/* Results are compared with a run where nothing failed, by an FNV-1a hash. */
static void digest_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;

	if (!res.digest)
		res.digest = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		res.digest ^= b[i];
		res.digest *= 0x100000001b3ull;
	}
}

/* Drops what differs from one run to the next: when a thing was stored. */
static void scrub(json_t *j)
{
	const char *k;
	json_t *v;
	size_t i;

	if (json_is_object(j)) {
		json_object_del(j, "at");
		json_object_del(j, "created_at");
		json_object_foreach (j, k, v)
			scrub(v);
	} else if (json_is_array(j)) {
		json_array_foreach (j, i, v)
			scrub(v);
	}
}

/* Called disarmed: what the scenario got, into the digest. */
static void digest_json(json_t *j)
{
	json_t *c = json_deep_copy(j);
	char *t;

	scrub(c);
	t = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	if (!t)
		abort();
	digest_bytes(t, strlen(t) + 1);
	/* a replayed child shows what it got, to compare with n = 0 */
	if (getenv("FAULTS_SHOW"))
		fprintf(stderr, "%s\n", t);
	free(t);
	json_decref(c);
}

static void digest_events(struct runlog *log)
{
	const struct runlog_event *e;
	int64_t after = 0;

	while ((e = runlog_next(log, after))) {
		json_error_t jerr;
		json_t *j = json_loads(e->json, 0, &jerr);
		if (!j) {
			int at = jerr.position > 40 ? jerr.position - 40 : 0;
			wrong("stored event %" PRId64
			      " is not JSON (%s): %.80s",
			      e->seq, jerr.text, e->json + at);
			return;
		}
		digest_bytes(&e->seq, sizeof(e->seq));
		digest_bytes(e->type, strlen(e->type));
		digest_json(j);
		json_decref(j);
		after = e->seq;
	}
}

/* Prepared by the parent, before any child: nothing here is counted. */
static struct topo *topo;
static char *run_text;
static size_t run_len;
static json_t *run_doc, *campaign;
static const char *tmpdir;
static char db_path[512];

static void remove_db(void)
{
	static const char *const ext[] = {"", "-wal", "-shm", "-journal"};
	char p[600];

	for (size_t i = 0; i < sizeof(ext) / sizeof(*ext); i++) {
		snprintf(p, sizeof(p), "%s%s", db_path, ext[i]);
		unlink(p);
	}
}

static int64_t count_events(struct store *st, int64_t id)
{
	struct runlog *log = runlog_new(id);
	const struct runlog_event *e;
	int64_t n = 0, last = 0;

	if (!log || store_load_events(st, id, 0, log))
		abort();
	while ((e = runlog_next(log, last))) {
		last = e->seq;
		n++;
	}
	runlog_unref(log);
	return n;
}

static const char *const ev_json[] = {
	"{\"type\":\"started\",\"seq\":1}",
	"{\"type\":\"progress\",\"seq\":2,\"done\":1,\"total\":2}",
	"{\"type\":\"done\",\"seq\":6,\"headline\":\"it ran\"}",
};
/* the last one's seq jumps (as an end made after a restart does): two of
 * the store's rows, so an append is a savepoint that may fail between */
static const int64_t ev_seq[] = {1, 2, 6};
static const char *const ev_type[] = {"started", "progress", "done"};
#define NEV 3

/*
 * The store as the runner and the API use it: a run from its creation to
 * its end, read back three ways, and a campaign. A failure stops the
 * scenario; what is stored must then be whole or absent.
 */
static void scenario_store(void)
{
	struct runlog_event ev[NEV];
	const struct runlog_event *evp[NEV];
	struct errinfo err = {0};
	struct errinfo ei = {0};
	struct store *st;
	struct runlog *log;
	json_t *j;
	int64_t id = 0, total;
	int rc, appended = 0;

	for (int i = 0; i < NEV; i++) {
		ev[i].seq = ev_seq[i];
		snprintf(ev[i].type, sizeof(ev[i].type), "%s", ev_type[i]);
		ev[i].json = (char *)ev_json[i];
		ev[i].len = strlen(ev_json[i]);
		evp[i] = &ev[i];
	}
	arm();
	st = store_open(db_path, &ei);
	if (!st) {
		disarm();
		reported("store_open", ei.msg);
		return;
	}
	rc = store_create_run(st, "false_sharing", "{\"threads\":\"2\"}",
			      "{\"experiment\":\"false_sharing\"}",
			      "2026-01-01T00:00:00.000Z", &id, &err);
	if (rc) {
		reported("store_create_run", err.msg);
		goto check;
	}
	if ((rc = store_run_started(st, id, "2026-01-01T00:00:01.000Z",
				    &err))) {
		reported("store_run_started", err.msg);
		goto check;
	}
	if ((rc = store_run_machine(st, id,
				    "{\"hostname\":\"node1\","
				    "\"cpu_model\":\"Test CPU\"}",
				    &err))) {
		reported("store_run_machine", err.msg);
		goto check;
	}
	if ((rc = store_append_events(st, id, evp, NEV, &err))) {
		reported("store_append_events", err.msg);
		goto check;
	}
	appended = 1;
	if ((rc = store_run_finished(st, id, "done", "2026-01-01T00:00:02.000Z",
				     NULL, "it ran", "{\"x\":1}", &err))) {
		reported("store_run_finished", err.msg);
		goto check;
	}
	errno = 0;
	j = store_get_run(st, id);
	if (!j) {
		int e = errno;
		reported("store_get_run", strerror(e));
		if (e == ENOENT)
			wrong("store_get_run says run %" PRId64
			      " is absent, and it is there",
			      id);
		goto check;
	}
	disarm();
	digest_json(j);
	json_decref(j);
	arm();
	if ((rc = store_find_runs(st, NULL, "node1", 10, 0, &j, &total))) {
		json_decref(j);
		reported("store_find_runs", strerror(-rc));
		goto check;
	}
	disarm();
	if (!j) {
		wrong("store_find_runs returned 0 and no array");
		goto check;
	}
	digest_json(j);
	digest_bytes(&total, sizeof(total));
	json_decref(j);
	arm();
	log = runlog_new(id);
	if (!log) {
		reported("runlog_new", "NULL");
		goto check;
	}
	if ((rc = store_load_events(st, id, 0, log))) {
		runlog_unref(log);
		reported("store_load_events", strerror(-rc));
		goto check;
	}
	disarm();
	digest_events(log);
	arm();
	runlog_unref(log);
	if ((rc = campaigns_record(st, campaign, &err))) {
		reported("campaigns_record", err.msg);
		goto check;
	}
	errno = 0;
	j = campaigns_get(st,
			  json_string_value(json_object_get(campaign, "id")), 0,
			  CAMPAIGN_PAGE_DEFAULT);
	if (!j) {
		reported("campaigns_get", strerror(errno));
		if (errno == ENOENT)
			wrong("campaigns_get says the campaign is absent");
		goto check;
	}
	disarm();
	digest_json(j);
	json_decref(j);
	arm();
	j = campaigns_list(st);
	if (!j) {
		reported("campaigns_list", "NULL");
		goto check;
	}
	disarm();
	digest_json(j);
	json_decref(j);
check:
	disarm();
	/* the events went in whole or not at all */
	if (id) {
		int64_t n = count_events(st, id);
		if (n != 0 && n != NEV)
			wrong("%" PRId64 " of %d events stored", n, NEV);
		if (appended && n != NEV)
			wrong("events said stored, %" PRId64 " found", n);
	}
	arm();
	store_close(st);
	disarm();
}

/*
 * POST /api/runs/import without the HTTP layer: a real run document
 * parsed within the limits, checked, stored, and read back. A failed
 * import leaves no run, or one marked failed.
 */
static void scenario_import(void)
{
	struct errinfo err = {0};
	struct errinfo e = {0};
	json_error_t jerr;
	struct store *st = store_open(db_path, &e);
	struct runlog *log;
	json_t *doc, *j, *runs = NULL;
	int64_t id = 0, total;
	size_t i;
	int rc, import_failed = 0;

	if (!st) {
		wrong("store_open with nothing failing: %s", e.msg);
		return;
	}
	arm();
	doc = jsonlimit_load(run_text, run_len, 0, NULL, &jerr, NULL, 0);
	if (!doc) {
		reported("jsonlimit_load", jerr.text);
		goto out;
	}
	if ((rc = import_validate(doc, &err))) {
		reported("import_validate", err.msg);
		goto out;
	}
	if ((rc = import_store(st, doc, "192.0.2.1", &id, &err))) {
		reported("import_store", err.msg);
		import_failed = 1;
		goto out;
	}
	errno = 0;
	j = store_get_run(st, id);
	if (!j) {
		reported("store_get_run", strerror(errno));
		goto out;
	}
	disarm();
	digest_json(j);
	json_decref(j);
	arm();
	log = runlog_new(id);
	if (!log) {
		reported("runlog_new", "NULL");
		goto out;
	}
	if ((rc = store_load_events(st, id, 0, log))) {
		runlog_unref(log);
		reported("store_load_events", strerror(-rc));
		goto out;
	}
	disarm();
	digest_events(log);
	runlog_unref(log);
out:
	disarm();
	json_decref(doc);
	/* a failed import leaves no run that looks whole */
	if (store_find_runs(st, NULL, NULL, 10, 0, &runs, &total) || !runs)
		abort();
	json_array_foreach (runs, i, j) {
		const char *s = json_string_value(json_object_get(j, "status"));
		if (import_failed && s && strcmp(s, "failed"))
			wrong("a failed import left run %" PRId64 " '%s'",
			      (int64_t)json_integer_value(
				      json_object_get(j, "id")),
			      s);
	}
	json_decref(runs);
	store_close(st);
}

struct delivered {
	const char *id, *node;
	int64_t runs, linked; /* out: runs stored; the node's run, 0 none */
};

static int delivered_locked(struct sqlite3 *db, void *arg)
{
	struct delivered *d = arg;
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM runs", -1, &s, NULL) !=
		    SQLITE_OK ||
	    sqlite3_step(s) != SQLITE_ROW)
		abort();
	d->runs = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (sqlite3_prepare_v2(db,
			       "SELECT coalesce(run_id, 0) FROM campaign_nodes "
			       "WHERE campaign_id=? AND node=?",
			       -1, &s, NULL) != SQLITE_OK)
		abort();
	sqlite3_bind_text(s, 1, d->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, d->node, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_ROW)
		abort();
	d->linked = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return 0;
}

/* Called disarmed: the run stored once and linked, or neither. */
static void stored_once_or_not(struct store *st, struct delivered *d,
			       const char *when)
{
	store_with_db(st, delivered_locked, d);
	if (d->runs > 1 || (d->runs == 1) != (d->linked != 0))
		wrong("%s: %" PRId64 " run(s) stored, the node's run %" PRId64,
		      when, d->runs, d->linked);
}

/*
 * POST /api/campaigns/{id}/nodes/{node} with a run, without the HTTP
 * layer: the run stored and linked to its node as one step, so a failure
 * anywhere leaves both or neither; the delivery sent again (nothing
 * failing) leaves the run stored once, linked.
 */
/*
 * The campaign the run is delivered to: the one read, of the run's own
 * experiment and params, its first node still running (a delivery must
 * agree with its campaign, and an ended node keeps its end).
 */
static json_t *campaign_of_run(void)
{
	json_t *c = json_deep_copy(campaign), *params = json_object();
	json_t *node = json_array_get(json_object_get(c, "nodes"), 0);
	const char *key;
	json_t *v;

	json_object_foreach (json_object_get(run_doc, "params"), key, v) {
		char *text = json_is_string(v) ? strdup(json_string_value(v))
					       : json_dumps(v, JSON_ENCODE_ANY);
		if (text)
			json_object_set_new(params, key, json_string(text));
		free(text);
	}
	json_object_set(c, "experiment",
			json_object_get(run_doc, "experiment"));
	json_object_set_new(c, "params", params);
	json_object_set_new(node, "state", json_string("running"));
	json_object_set_new(node, "reason", json_null());
	return c;
}

static void scenario_deliver(void)
{
	struct campaign_node_update u = {"done", NULL, NULL};
	json_t *mine = campaign_of_run();
	struct delivered d = {
		json_string_value(json_object_get(campaign, "id")),
		json_string_value(json_object_get(
			json_array_get(json_object_get(campaign, "nodes"), 0),
			"node")),
		0, 0};
	struct errinfo err = {0};
	struct errinfo e = {0};
	struct store *st = store_open(db_path, &e);
	int64_t id = 0;
	int rc, stored = 0;

	if (!st || !mine || campaigns_record(st, mine, &err)) {
		wrong("setting up with nothing failing: %s",
		      st ? err.msg : e.msg);
		store_close(st);
		json_decref(mine);
		return;
	}
	json_decref(mine);
	arm();
	rc = campaign_deliver_node(st, d.id, d.node, &u, run_doc, "192.0.2.1",
				   &id, &stored, &err);
	disarm();
	if (rc)
		reported("campaign_deliver_node", err.msg);
	else if (!stored || !id)
		wrong("delivered, and no run said stored");
	stored_once_or_not(st, &d, "after the delivery");
	if (!rc && d.linked != id)
		wrong("run %" PRId64 " said stored, the node's is %" PRId64, id,
		      d.linked);
	if (campaign_deliver_node(st, d.id, d.node, &u, run_doc, "192.0.2.1",
				  &id, &stored, &err))
		wrong("delivered again with nothing failing: %s", err.msg);
	stored_once_or_not(st, &d, "delivered again");
	if (d.runs != 1 || d.linked != id || stored != !!rc)
		wrong("delivered again: %" PRId64 " run(s), stored %d", d.runs,
		      stored);
	digest_bytes(&d.runs, sizeof(d.runs));
	store_close(st);
}

/*
 * A stored run read back as GET /api/runs/{id} serves it: its events
 * folded into the document, described with today's rules, and exported
 * as CSV.
 */
static void scenario_describe(void)
{
	struct errinfo err = {0};
	struct errinfo ei = {0};
	struct store *st = store_open(db_path, &ei);
	struct runlog *log = NULL;
	const struct runlog_event *e;
	json_t *doc = NULL, *today;
	int64_t id = 0, after = 0;
	size_t len;
	char *csv;
	int rc;

	if (!st || import_store(st, run_doc, NULL, &id, &err)) {
		wrong("storing the run with nothing failing: %s",
		      st ? err.msg : ei.msg);
		store_close(st);
		return;
	}
	arm();
	log = runlog_new(id);
	if (!log) {
		reported("runlog_new", "NULL");
		goto out;
	}
	if ((rc = store_load_events(st, id, 0, log))) {
		reported("store_load_events", strerror(-rc));
		goto out;
	}
	doc = events_doc_new();
	if (!doc) {
		reported("events_doc_new", "NULL");
		goto out;
	}
	while ((e = runlog_next(log, after))) {
		json_error_t jerr;
		json_t *ev = jsonlimit_loads(e->json, 0, NULL, &jerr);
		if (!ev) {
			reported("jsonlimit_loads", jerr.text);
			goto out;
		}
		rc = events_fold(doc, ev, 0);
		json_decref(ev);
		if (rc) {
			reported("events_fold", strerror(-rc));
			goto out;
		}
		after = e->seq;
	}
	today = describe_doc_today(doc, &err);
	if (!today) {
		reported("describe_doc_today", err.msg);
		goto out;
	}
	disarm();
	digest_json(today);
	json_decref(today);
	arm();
	csv = export_csv(doc, id, &len);
	if (!csv) {
		reported("export_csv", "NULL");
		goto out;
	}
	disarm();
	digest_bytes(csv, len);
	free(csv);
out:
	disarm();
	json_decref(doc);
	runlog_unref(log);
	store_close(st);
}

/*
 * The API document, loaded by the first check of a document: a failure
 * is reported, and the next check loads it (it is never kept for the
 * server's life).
 */
static void scenario_schema(void)
{
	struct errinfo err = {0};
	int rc;

	arm();
	rc = campaigns_check(campaign, &err);
	disarm();
	if (!rc)
		return;
	reported("campaigns_check", err.msg);
	if ((rc = campaigns_check(campaign, &err)))
		wrong("after one failure, campaigns_check fails again: %s",
		      err.msg);
}

/*
 * Every experiment's defaults, parsed as a stored run's params are (the
 * machine's own checks ask for more than a synthetic topology has).
 */
static void scenario_params(void)
{
	struct errinfo err = {0};

	for (int k = 0; experiments[k]; k++) {
		const struct experiment *x = experiments[k];
		struct param_values *pv;
		struct common_params common;
		void *params;
		int rc;

		arm();
		pv = calloc(1, sizeof(*pv));
		params = calloc(1, x->params_size ? x->params_size : 1);
		if (!pv || !params) {
			disarm();
			free(pv);
			free(params);
			reported("calloc", "NULL");
			return;
		}
		rc = experiment_parse_recorded(x, 0, NULL, pv, params, &common,
					       &err);
		disarm();
		if (rc) {
			reported(x->name, err.msg);
		} else {
			for (int i = 0; i < pv->n; i++)
				digest_bytes(pv->v[i].text,
					     strlen(pv->v[i].text) + 1);
		}
		free(pv);
		free(params);
		if (rc)
			return;
	}
}

struct scenario {
	const char *name;
	void (*fn)(void);
	/* runs with the API document loaded by the parent, so that its
	 * loading (the schema scenario) is not counted again */
	int primed;
};

/* the schema scenario first: the others' children inherit the loaded
 * document */
static const struct scenario scenarios[] = {
	{"schema", scenario_schema, 0},	    {"store", scenario_store, 1},
	{"import", scenario_import, 1},	    {"deliver", scenario_deliver, 1},
	{"describe", scenario_describe, 1}, {"params", scenario_params, 1},
};
#define NSCEN (sizeof(scenarios) / sizeof(*scenarios))

static int result_fd = -1;

/* jansson's lexer asserts when a buffer it could not grow leaves it lost */
static void on_abort(int sig)
{
	(void)sig;
	if (in_lib && result_fd >= 0) {
		res.calls = counted;
		res.injected = injected;
		res.lib_abort = 1;
		if (write(result_fd, &res, sizeof(res)) != sizeof(res))
			_exit(98);
		_exit(0);
	}
	signal(SIGABRT, SIG_DFL);
	raise(SIGABRT);
}

/* One child: the scenario with the n-th call of kind k failing (0: none). */
static pid_t spawn(const struct scenario *sc, enum fault_kind k,
		   unsigned long n, int *rfd, const char *log)
{
	int fd[2];
	pid_t pid;

	if (pipe(fd))
		abort();
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		abort();
	if (pid) {
		close(fd[1]);
		*rfd = fd[0];
		return pid;
	}
	close(fd[0]);
	result_fd = fd[1];
	signal(SIGABRT, on_abort);
	if (log && !freopen(log, "w", stderr))
		_exit(99);
	snprintf(db_path, sizeof(db_path), "%s/%s-%s-%lu.db", tmpdir, sc->name,
		 kind_names[k], n);
	remove_db();
	memset(&res, 0, sizeof(res));
	kind = k;
	fail_at = n;
	owner = pthread_self();
	sc->fn();
	res.calls = counted;
	res.injected = injected;
	res.swallowed = swallowed;
	remove_db();
	if (write(fd[1], &res, sizeof(res)) != sizeof(res))
		_exit(98);
	close(fd[1]);
	/* exit, not _exit: LeakSanitizer looks at what is left */
	exit(0);
}

struct tally {
	unsigned long calls, injected, reported, absorbed, bad, lib;
};

/* Waits for a child; nonzero when it crashed, leaked or wrote nothing. */
static int reap(pid_t pid, int rfd, struct result *r, char *why, size_t len)
{
	int status;
	ssize_t got = read(rfd, r, sizeof(*r));

	close(rfd);
	if (waitpid(pid, &status, 0) != pid)
		abort();
	if (WIFSIGNALED(status)) {
		snprintf(why, len, "killed by signal %d", WTERMSIG(status));
		return 1;
	}
	if (WEXITSTATUS(status)) {
		snprintf(why, len,
			 "exit status %d (a sanitizer report or a leak)",
			 WEXITSTATUS(status));
		return 1;
	}
	if (got != (ssize_t)sizeof(*r)) {
		snprintf(why, len, "no result");
		return 1;
	}
	return 0;
}

static void show_log(const char *log)
{
	char line[512];
	FILE *f = fopen(log, "r");
	int n = 0;

	while (f && fgets(line, sizeof(line), f) && n++ < 40)
		fprintf(stderr, "    | %s", line);
	if (f)
		fclose(f);
}

/*
 * Runs sc once with nothing failing (the reference), then once for every
 * n up to the calls it made, `jobs` children at a time. Returns the
 * number of problems.
 */
static int run_scenario(const struct scenario *sc, enum fault_kind k,
			unsigned long most, int jobs)
{
	unsigned long stride;
	struct tally t = {0};
	struct result ref, r;
	char why[256], log[600];
	pid_t pids[16];
	int fds[16];
	unsigned long ns[16];
	int rfd;
	pid_t pid;

	snprintf(log, sizeof(log), "%s/%s-%s-0.log", tmpdir, sc->name,
		 kind_names[k]);
	pid = spawn(sc, k, 0, &rfd, log);
	if (reap(pid, rfd, &ref, why, sizeof(why)) || ref.outcome != OUT_OK) {
		printf("  %-8s %-6s FAIL with nothing failing: %s %s\n",
		       sc->name, kind_names[k], why, ref.note);
		show_log(log);
		return 1;
	}
	t.calls = ref.calls;
	if (!ref.calls) {
		printf("  %-8s %-6s makes no such calls\n", sc->name,
		       kind_names[k]);
		return 0;
	}
	stride = most ? (ref.calls + most - 1) / most : 1;
	for (unsigned long n = 1; n <= ref.calls;) {
		int m = 0;

		for (; m < jobs && n <= ref.calls; m++, n += stride) {
			ns[m] = n;
			snprintf(log, sizeof(log), "%s/%s-%s-%lu.log", tmpdir,
				 sc->name, kind_names[k], n);
			pids[m] = spawn(sc, k, n, &fds[m], log);
		}
		for (int i = 0; i < m; i++) {
			snprintf(log, sizeof(log), "%s/%s-%s-%lu.log", tmpdir,
				 sc->name, kind_names[k], ns[i]);
			memset(&r, 0, sizeof(r));
			if (reap(pids[i], fds[i], &r, why, sizeof(why))) {
				printf("  %-8s %-6s n=%lu: %s\n", sc->name,
				       kind_names[k], ns[i], why);
				show_log(log);
				t.bad++;
				continue;
			}
			unlink(log);
			if (!r.injected) {
				printf("  %-8s %-6s n=%lu: nothing failed"
				       " (%lu calls, %lu before)\n",
				       sc->name, kind_names[k], ns[i], r.calls,
				       ref.calls);
				t.bad++;
				continue;
			}
			t.injected++;
			if (r.lib_abort && !strict) {
				if (!t.lib)
					printf("  %-8s %-6s n=%lu: jansson "
					       "aborted on the failure\n",
					       sc->name, kind_names[k], ns[i]);
				t.lib++;
			} else if (r.lib_abort) {
				printf("  %-8s %-6s n=%lu: jansson aborted\n",
				       sc->name, kind_names[k], ns[i]);
				t.bad++;
			} else if (r.swallowed && !strict &&
				   (r.outcome == OUT_WRONG ||
				    (r.outcome == OUT_OK &&
				     r.digest != ref.digest))) {
				if (!t.lib)
					printf("  %-8s %-6s n=%lu: jansson "
					       "swallowed the failure (%s)\n",
					       sc->name, kind_names[k], ns[i],
					       r.outcome == OUT_WRONG
						       ? r.note
						       : "results differ");
				t.lib++;
			} else if (r.outcome == OUT_WRONG) {
				printf("  %-8s %-6s n=%lu: wrong: %s\n",
				       sc->name, kind_names[k], ns[i], r.note);
				t.bad++;
			} else if (r.outcome == OUT_REPORTED) {
				t.reported++;
			} else if (r.digest != ref.digest) {
				printf("  %-8s %-6s n=%lu: success claimed, "
				       "results differ\n",
				       sc->name, kind_names[k], ns[i]);
				t.bad++;
			} else {
				t.absorbed++;
			}
		}
	}
	printf("  %-8s %-6s calls %6lu  failed %5lu  reported %5lu  "
	       "absorbed %5lu  problems %lu",
	       sc->name, kind_names[k], t.calls, t.injected, t.reported,
	       t.absorbed, t.bad);
	if (t.lib)
		printf("  jansson's %lu", t.lib);
	if (stride > 1)
		printf("  (n = 1, %lu, %lu, ...)", 1 + stride, 1 + 2 * stride);
	printf("\n");
	fflush(stdout);
	return t.bad ? 1 : 0;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 &&
	    !fseek(f, 0, SEEK_SET) && (buf = malloc((size_t)n + 1)) &&
	    fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = 0;
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static void prime(void)
{
	struct errinfo err;

	if (campaigns_check(campaign, &err)) {
		fprintf(stderr, "fault_run: %s\n", err.msg);
		exit(1);
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: fault_run TMPDIR RUN.json CAMPAIGN.json [SCENARIO "
		"[alloc|sql [N]]]\n"
		"  FAULTS_JOBS children at a time (2); FAULTS_MOST: the most "
		"n's tried\n  for one scenario and kind, spread over its "
		"calls (0: all; default\n  300 allocations, every SQL call, "
		"100 of SQLite's allocations)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *only = argc > 4 ? argv[4] : NULL;
	const char *only_kind = argc > 5 ? argv[5] : NULL;
	const char *e;
	unsigned long most[NKINDS] = {300, 0, 100};
	json_error_t jerr;
	size_t len;
	char *text;
	int jobs = 2, bad = 0, ran = 0;

	if (argc < 4)
		usage();
	hook_libraries();
	tmpdir = argv[1];
	strict = (e = getenv("FAULTS_STRICT")) && atoi(e) > 0;
	if ((e = getenv("FAULTS_JOBS")) && atoi(e) > 0)
		jobs = atoi(e) > 16 ? 16 : atoi(e);
	/* FAULTS_MOST=0: every n of every kind, however long it takes */
	if ((e = getenv("FAULTS_MOST")))
		for (int k = 0; k < NKINDS; k++)
			most[k] = strtoul(e, NULL, 10);
	run_text = read_file(argv[2], &run_len);
	text = read_file(argv[3], &len);
	if (!run_text || !text) {
		fprintf(stderr, "fault_run: cannot read '%s' or '%s'\n",
			argv[2], argv[3]);
		return 1;
	}
	run_doc = json_loads(run_text, 0, &jerr);
	campaign = json_loads(text, 0, &jerr);
	free(text);
	/* a fixed synthetic machine, as the fuzz targets use, with memory on
	 * its nodes for the experiments that size a buffer by it */
	setenv("HWLOC_SYNTHETIC",
	       "pack:2 numa:1(memory=4GB) l3:1(size=8MB) core:2 pu:2", 1);
	topo = topo_load();
	unsetenv("HWLOC_SYNTHETIC");
	if (!run_doc || !campaign || !topo) {
		fprintf(stderr, "fault_run: cannot set up the scenarios\n");
		return 1;
	}
	/* one failure, replayed: SCENARIO KIND N runs that child alone */
	if (argc > 6) {
		for (size_t i = 0; i < NSCEN; i++) {
			if (strcmp(scenarios[i].name, only))
				continue;
			if (scenarios[i].primed)
				prime();
			struct result r;
			char why[256] = "";
			int rfd;
			enum fault_kind k = FAULT_ALLOC;
			while (k < NKINDS && strcmp(kind_names[k], only_kind))
				k++;
			if (k == NKINDS)
				usage();
			pid_t pid =
				spawn(&scenarios[i], k,
				      strtoul(argv[6], NULL, 10), &rfd, NULL);
			memset(&r, 0, sizeof(r));
			bad = reap(pid, rfd, &r, why, sizeof(why));
			printf("calls %lu injected %d outcome %d digest %016" PRIx64
			       " %s %s\n",
			       r.calls, r.injected, r.outcome, r.digest, r.note,
			       why);
			return bad;
		}
		usage();
	}
	for (size_t i = 0; i < NSCEN; i++) {
		if (only && strcmp(scenarios[i].name, only))
			continue;
		if (scenarios[i].primed)
			prime();
		for (int k = 0; k < NKINDS; k++) {
			if (only_kind && strcmp(kind_names[k], only_kind))
				continue;
			bad += run_scenario(&scenarios[i], k, most[k], jobs);
			ran++;
		}
	}
	json_decref(run_doc);
	json_decref(campaign);
	free(run_text);
	topo_free(topo);
	if (!ran)
		usage();
	return bad ? 1 : 0;
}
