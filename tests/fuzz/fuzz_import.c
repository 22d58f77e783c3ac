/* fuzz_import.c - libFuzzer target: a run document or campaign record through what an import does */
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "campaign_check.h"
#include "campaigns.h"
#include "describe_doc.h"
#include "events.h"
#include "experiment.h"
#include "export_csv.h"
#include "import.h"
#include "jsonlimit.h"
#include "registry.h"
#include "topo.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/*
 * The server's parse of a request body (POST /api/runs/import, POST
 * /api/campaigns), kept in one place so the target follows it when it
 * changes.
 */
static json_t *parse_body(const uint8_t *data, size_t size)
{
	json_error_t jerr;

	/* as the server's handlers parse a body */
	return jsonlimit_load((const char *)data, size, 0, NULL, &jerr, NULL,
			      0);
}

static struct topo *topo;
/* NUMALAB_FUZZ_VERBOSE=1: say why an input was refused (to check seeds) */
static int verbose;

/*
 * A fixed synthetic machine (2 packages of 2 cores of 2 PUs), so that what
 * a document's params may ask for does not depend on the host.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("HWLOC_SYNTHETIC", "pack:2 numa:1 l3:1 core:2 pu:2", 1);
	topo = topo_load();
	unsetenv("HWLOC_SYNTHETIC");
	verbose = getenv("NUMALAB_FUZZ_VERBOSE") != NULL;
	if (!topo)
		abort();
	return 0;
}

static void dump(json_t *j)
{
	free(json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY));
}

/* POST /api/campaigns: the record checked as campaigns_record checks it. */
static void campaign(json_t *c)
{
	struct errinfo err;

	if (!campaigns_check(c, &err))
		dump(c);
	else if (verbose)
		fprintf(stderr, "campaign refused: %s (%s)\n", err.msg,
			err.field);
}

/* The document GET /api/runs/{id} serves: the stored events folded again
 * (rundoc.c), described and exported as CSV. */
static void read_back(json_t *events)
{
	json_t *doc = events_doc_new(), *ev, *today;
	size_t len, i;

	json_array_foreach (events, i, ev) {
		/* stored as text and read back, as the store does */
		char *text = json_dumps(ev, JSON_COMPACT);
		json_t *back = text ? json_loads(text, 0, NULL) : NULL;
		if (back && doc)
			events_fold(doc, back, 0);
		json_decref(back);
		free(text);
	}
	today = doc ? describe_doc_today(doc, NULL) : NULL;
	free(doc ? export_csv(doc, 1, &len) : NULL);
	json_decref(today);
	json_decref(doc);
}

/*
 * POST /api/runs/import without the HTTP layer and the store: the
 * document checked, described with today's rules, turned back into the
 * events the store would keep (with the provenance import_store adds),
 * each serialised, and exported as CSV as GET /api/runs/{id}/export.csv
 * would; then read back as a stored run is.
 */
static void run_doc(json_t *doc)
{
	struct errinfo err;
	json_t *today, *imported, *events, *ev;
	size_t len, i;
	char *csv;

	if (import_validate(doc, &err)) {
		if (verbose)
			fprintf(stderr, "run refused: %s (%s)\n", err.msg,
				err.field);
		return;
	}
	today = describe_doc_today(doc, NULL);
	imported = json_pack("{s:s, s:s, s:O?}", "source", "export", "at",
			     "2026-01-01T00:00:00Z", "verdict", today);
	events = events_from_doc(doc, imported);
	json_array_foreach (events, i, ev)
		dump(ev);
	csv = export_csv(doc, 1, &len);
	free(csv);
	dump(doc);
	read_back(events);
	json_decref(events);
	json_decref(imported);
	json_decref(today);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = parse_body(data, size);

	if (!doc) {
		if (verbose)
			fprintf(stderr, "not JSON\n");
		return 0;
	}
	if (json_object_get(doc, "engine") || json_object_get(doc, "nodes"))
		campaign(doc);
	else
		run_doc(doc);
	json_decref(doc);
	return 0;
}

/* ---- a mutator that knows JSON ---------------------------------------- */

static uint64_t rng;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t below(size_t n)
{
	return n ? (size_t)(next() % n) : 0;
}

/* Where one value sits: in an object under key, or in an array at index. */
struct slot {
	json_t *parent; /* NULL: the root */
	const char *key;
	size_t index;
	json_t *value;
};

/* Visits every value depth first; stops at the want'th (counting from 0). */
static int walk(json_t *parent, const char *key, size_t index, json_t *v,
		size_t *seen, size_t want, struct slot *out)
{
	const char *k;
	json_t *c;
	size_t i;

	if ((*seen)++ == want) {
		*out = (struct slot){parent, key, index, v};
		return 1;
	}
	if (json_is_object(v)) {
		json_object_foreach (v, k, c)
			if (walk(v, k, 0, c, seen, want, out))
				return 1;
	} else if (json_is_array(v)) {
		json_array_foreach (v, i, c)
			if (walk(v, NULL, i, c, seen, want, out))
				return 1;
	}
	return 0;
}

static size_t count(json_t *v)
{
	struct slot s;
	size_t n = 0;

	walk(NULL, NULL, 0, v, &n, SIZE_MAX, &s);
	return n;
}

static int pick(json_t *root, struct slot *s)
{
	size_t n = 0;

	return walk(NULL, NULL, 0, root, &n, below(count(root)), s);
}

/* Puts v (a reference stolen) where s is; the root cannot be replaced. */
static void put(struct slot *s, json_t *v)
{
	if (!v)
		return;
	if (json_is_object(s->parent))
		json_object_set_new(s->parent, s->key, v);
	else if (json_is_array(s->parent))
		json_array_set_new(s->parent, s->index, v);
	else
		json_decref(v);
}

/* Values at the edges of what the server reads: int casts, sizes, text. */
static json_t *edge_value(void)
{
	static const json_int_t ints[] = {
		0,	    -1,
		1,	    2,
		INT_MAX,    (json_int_t)INT_MAX + 1,
		INT_MIN,    (json_int_t)INT_MIN - 1,
		UINT32_MAX, (json_int_t)UINT32_MAX + 1,
		INT64_MAX,  INT64_MIN,
		4096,	    4097,
		65536,
	};
	static const double reals[] = {0.0,    -0.0,   0.5,  -1.5, 1e308,
				       -1e308, 5e-324, 1e-9, 3.0};
	static const char *const texts[] = {
		"",	"0",	  "-1",	     "1-4",   "1,2,4",	     "0-65535",
		"64M",	"all",	  "x",	     "=1+2",  "a,\"b\"\r\n", "\xc3\xa9",
		"done", "failed", "running", "slurm", "clush",	     "info",
		"warn", "cannot", "null"};

	switch (below(8)) {
	case 0:
		return json_null();
	case 1:
		return json_boolean(below(2));
	case 2:
	case 3:
		return json_integer(ints[below(sizeof(ints) / sizeof(*ints))]);
	case 4:
		return json_real(reals[below(sizeof(reals) / sizeof(*reals))]);
	case 5:
		return json_object();
	case 6:
		return json_array();
	default:
		if (below(4) == 0) {
			/* a long text, and one with a name in it */
			size_t n = 1 + below(2000);
			char *b = malloc(n + 1);
			json_t *s;
			if (!b)
				return NULL;
			memset(b, 'a' + (int)below(26), n);
			b[n] = '\0';
			s = json_string(b);
			free(b);
			return s;
		}
		if (below(3) == 0) {
			size_t n = 0;
			while (experiments[n])
				n++;
			return json_string(experiments[below(n)]->name);
		}
		return json_string(
			texts[below(sizeof(texts) / sizeof(*texts))]);
	}
}

/* A number nudged: the same type, off by a little or far. */
static json_t *nudge(json_t *v)
{
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);
		switch (below(4)) {
		case 0: /* wrapping, as the mutator must not overflow itself */
			return json_integer(
				(json_int_t)((uint64_t)i + below(5) - 2));
		case 1:
			return json_integer(i == INT64_MIN ? 0 : -i);
		case 2:
			return json_integer((json_int_t)((uint64_t)i ^
							 (1ull << below(64))));
		default:
			return json_real((double)i + 0.5);
		}
	}
	if (json_is_real(v)) {
		double d = json_real_value(v);
		return below(2) ? json_real(d * -1.0)
				: json_integer((json_int_t)(d < 0 ? -1 : 1));
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		size_t n = json_string_length(v);
		char *b = malloc(n + 2);
		json_t *out;
		if (!b)
			return NULL;
		memcpy(b, s, n + 1);
		if (n && below(2))
			b[below(n)] = (char)(' ' + below(95));
		else
			memcpy(b + n, "x", 2);
		out = json_stringn(b, strlen(b));
		free(b);
		return out;
	}
	return edge_value();
}

static void mutate_one(json_t *root)
{
	struct slot s, other;

	if (!pick(root, &s))
		return;
	switch (below(9)) {
	case 0:
	case 1:
		put(&s, edge_value());
		break;
	case 2:
		put(&s, nudge(s.value));
		break;
	case 3: /* a field or an item gone */
		if (json_is_object(s.parent))
			json_object_del(s.parent, s.key);
		else if (json_is_array(s.parent))
			json_array_remove(s.parent, s.index);
		break;
	case 4: /* a key renamed: unknown, or another field's */
		if (json_is_object(s.parent) && pick(root, &other)) {
			char key[64];
			json_t *v = json_incref(s.value);
			if (other.key && below(2))
				snprintf(key, sizeof(key), "%s", other.key);
			else
				snprintf(key, sizeof(key), "%.40s_", s.key);
			json_object_del(s.parent, s.key);
			json_object_set_new(s.parent, key, v);
		}
		break;
	case 5: /* an array longer: one item repeated */
		if (json_is_array(s.value) && json_array_size(s.value)) {
			size_t n = 1 + below(below(4) ? 4 : 300);
			json_t *item = json_array_get(
				s.value, below(json_array_size(s.value)));
			for (size_t i = 0; i < n; i++)
				json_array_append_new(s.value,
						      json_deep_copy(item));
		} else if (json_is_array(s.parent)) {
			json_array_append_new(s.parent,
					      json_deep_copy(s.value));
		}
		break;
	case 6: /* an array shorter */
		if (json_is_array(s.value))
			while (json_array_size(s.value) &&
			       below(json_array_size(s.value) + 1))
				json_array_remove(s.value,
						  json_array_size(s.value) - 1);
		break;
	case 7: /* a value from elsewhere in the document, of any type */
		if (pick(root, &other) && other.value != s.value)
			put(&s, json_deep_copy(other.value));
		break;
	default: /* nested one level deeper */
		put(&s, below(2) ? json_pack("[O]", s.value)
				 : json_pack("{s:O}", "value", s.value));
		break;
	}
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	json_t *root;
	char *text;
	size_t len;

	rng = (uint64_t)seed * 0x9e3779b97f4a7c15ull + 1;
	if (below(5) == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	root = json_loadb((const char *)data, size, 0, NULL);
	if (!json_is_object(root) && !json_is_array(root)) {
		json_decref(root);
		return LLVMFuzzerMutate(data, size, max_size);
	}
	for (size_t n = 1 + below(3); n; n--)
		mutate_one(root);
	text = json_dumps(root, below(8) ? JSON_COMPACT : JSON_INDENT(1));
	json_decref(root);
	len = text ? strlen(text) : 0;
	if (!text || len > max_size) {
		free(text);
		return LLVMFuzzerMutate(data, size, max_size);
	}
	memcpy(data, text, len);
	free(text);
	return len;
}
