/* test_describe_doc.c - stored run documents (JSON) described again: each experiment family's canned document and what today's rules say of it */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "describe_doc.h"
#include "machine.h"
#include "run_fixture.h"

/* machine records as a run stores them (cli/machine.c) */
#define VM_2CPU_32M_L3                                                         \
	"{\"hostname\": \"vm\", \"pus\": 2, \"cores\": 2, \"packages\": 1,"    \
	" \"nodes\": 1, \"smt\": false, \"vm\": true, \"caches\": ["           \
	"{\"level\": 2, \"size\": 1048576, \"instances_of_npus\": 1},"         \
	"{\"level\": 3, \"size\": 33554432, \"instances_of_npus\": 2}]}"
#define BOX_2CPU_96M_L3                                                        \
	"{\"pus\": 2, \"cores\": 2, \"packages\": 1, \"nodes\": 1,"            \
	" \"smt\": false, \"vm\": false, \"caches\": ["                        \
	"{\"level\": 3, \"size\": 100663296, \"instances_of_npus\": 2}]}"
#define BOX_4CPU_ONE_L3                                                        \
	"{\"pus\": 4, \"cores\": 4, \"packages\": 1, \"nodes\": 1,"            \
	" \"smt\": false, \"vm\": false, \"caches\": ["                        \
	"{\"level\": 3, \"size\": 8388608, \"instances_of_npus\": 4}]}"
#define TWO_SOCKET_SMT                                                         \
	"{\"pus\": 8, \"cores\": 4, \"packages\": 2, \"nodes\": 2,"            \
	" \"smt\": true, \"vm\": false, \"caches\": ["                         \
	"{\"level\": 2, \"size\": 262144, \"instances_of_npus\": 2},"          \
	"{\"level\": 3, \"size\": 8388608, \"instances_of_npus\": 4}]}"

/* A run document: experiment, status, params and machine as JSON text. */
static json_t *doc_new(const char *experiment, const char *params,
		       const char *machine, const char *headline)
{
	json_error_t e;
	json_t *doc = json_pack("{s:s, s:s, s:o, s:o, s:[], s:[], s:[], s:[],"
				" s:{}, s:s?}",
				"experiment", experiment, "status", "done",
				"params", json_loads(params, 0, &e), "machine",
				json_loads(machine, 0, &e), "samples", "cells",
				"placement", "notes", "summary", "headline",
				headline);

	assert_non_null(doc);
	return doc;
}

/* A point whose rounds lie within +-spread of y, as a sample event holds it. */
static json_t *sample(json_t *doc, const char *chart, const char *series,
		      double x, const char *x_label, double y, double spread)
{
	json_t *s = json_pack(
		"{s:s, s:s, s:f, s:s?, s:f, s:s, s:[f,f,f,f,f], s:{s:i, s:f,"
		" s:f, s:f, s:f, s:f}}",
		"chart", chart, "series", series, "x", x, "x_label", x_label,
		"y", y, "unit", "", "samples", y, y, y, y, y, "stats", "n", 5,
		"median", y, "min", y * (1 - spread), "max", y * (1 + spread),
		"ci_lo", y * (1 - spread), "ci_hi", y * (1 + spread));

	assert_non_null(s);
	json_array_append_new(json_object_get(doc, "samples"), s);
	return s;
}

/* A placement whose threads ran on cpus[] (one node, one package). */
static void placement(json_t *doc, const char *label, const int *cpus, int n)
{
	json_t *threads = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(
			threads,
			json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}",
				  "thread", i, "cpu", cpus[i], "cpu_observed",
				  cpus[i], "core", cpus[i], "package", 0,
				  "node", 0, "l2", cpus[i], "l3", 0));
	json_array_append_new(
		json_object_get(doc, "placement"),
		json_pack("{s:s, s:o}", "label", label, "threads", threads));
}

static void summary(json_t *doc, const char *key, double value)
{
	json_object_set_new(
		json_object_get(doc, "summary"), key,
		json_pack("{s:f, s:s}", "value", value, "unit", ""));
}

static struct verdict *describe(json_t *doc, struct verdict *v)
{
	struct errinfo err;

	assert_int_equal(describe_doc(doc, v, &err), 0);
	return v;
}

/* The record's caches give the machine facts a live topology gives. */
static void machine_record_matches_topology(void **state)
{
	const char *files[] = {"tests/data/two_socket_smt.xml"};
	const char *synth[] = {"pack:1 numa:1 l3:1 core:2 pu:1",
			       "pack:4 numa:1 l3:1 core:2 pu:1",
			       "pack:1 numa:1 l3:2 core:1 pu:1"};
	struct machine_facts want, got;

	(void)state;
	for (int i = 0; i < 4; i++) {
		struct topo *t =
			i < 1 ? xml(files[i]) : synthetic(synth[i - 1]);
		json_t *rec = machine_json(t);

		machine_facts_from_topo(t, &want);
		describe_doc_machine(rec, &got);
		assert_int_equal(got.npus, want.npus);
		assert_int_equal(got.ncores, want.ncores);
		assert_int_equal(got.npackages, want.npackages);
		assert_int_equal(got.nnodes, want.nnodes);
		assert_int_equal(got.smt, want.smt);
		assert_int_equal(got.llc_level, want.llc_level);
		assert_int_equal(got.llc_instances, want.llc_instances);
		assert_int_equal(got.llc_bytes, want.llc_bytes);
		assert_int_equal(got.l2_instances, want.l2_instances);
		json_decref(rec);
		topo_free(t);
	}
}

/* bandwidth_scaling, compact and spread on the same cpus, stored as two lines
 * with a claim */
static void scaling_claim_not_repeated(void **state)
{
	json_t *doc = doc_new("bandwidth_scaling",
			      "{\"threads\": \"1-2\", \"ops\": \"read\"}",
			      VM_2CPU_32M_L3,
			      "read 30.5 GB/s compact vs 46.8 GB/s spread");
	const int one[] = {0}, two[] = {0, 1};
	struct verdict v;
	json_t *today;

	(void)state;
	sample(doc, "read", "compact", 1, NULL, 30.5, 0.02);
	sample(doc, "read", "compact", 2, NULL, 31.0, 0.02);
	sample(doc, "read", "spread", 1, NULL, 46.8, 0.02);
	sample(doc, "read", "spread", 2, NULL, 47.0, 0.02);
	placement(doc, "threads=1 placement=compact", one, 1);
	placement(doc, "threads=2 placement=compact", two, 2);
	placement(doc, "threads=1 placement=spread", one, 1);
	placement(doc, "threads=2 placement=spread", two, 2);
	describe(doc, &v);
	assert_true(verdict_has_level(&v, "cannot"));
	assert_true(verdict_says(&v, "same cpus at every thread count"));
	assert_false(verdict_says(&v, "against"));
	assert_false(verdict_says(&v, "compact vs"));
	today = describe_doc_today(doc, NULL);
	assert_non_null(today);
	assert_true(json_is_true(json_object_get(today, "changed")));
	assert_true(json_array_size(json_object_get(today, "notes")) > 0);
	json_decref(today);
	json_decref(doc);
}

/* memory_policy: a 4M buffer under the record's 32 MiB L3 is labelled from
 * cache */
static void policy_from_cache_by_the_record(void **state)
{
	json_t *doc = doc_new("memory_policy",
			      "{\"size\": \"4M\", \"policy\": \"default\"}",
			      VM_2CPU_32M_L3, "local memory bandwidth 96 GB/s");
	struct verdict v;

	(void)state;
	sample(doc, "pages", "after first touch", 0, "node 0", 1024, 0);
	sample(doc, "bandwidth", "read (from cache)", 0, "node 0", 96, 0.02);
	describe(doc, &v);
	assert_true(verdict_says(&v, "read from cache 96.0 GB/s from node 0"));
	assert_true(verdict_says(&v, "fits in this machine's 32 MiB of L3"));
	assert_true(verdict_says(&v, "moving pages cannot be shown"));
	assert_false(verdict_says(&v, "local memory bandwidth"));
	json_decref(doc);
}

/* remote_bandwidth: the old 64M default under a 96 MiB L3 */
static void remote_default_under_big_l3(void **state)
{
	json_t *doc = doc_new("remote_bandwidth", "{\"size\": \"64M\"}",
			      BOX_2CPU_96M_L3, NULL);
	struct verdict v;

	(void)state;
	sample(doc, "mixed", "regular stores (from cache)", 0, "all local", 50,
	       0.02);
	describe(doc, &v);
	assert_true(verdict_says(&v, "64 MiB fits in this machine's 96 MiB"));
	json_decref(doc);
}

/* false_sharing: strides past the line share nothing, whatever was stored */
static void false_sharing_past_the_line(void **state)
{
	json_t *doc = doc_new(
		"false_sharing", "{\"threads\": \"2\", \"stride\": \"64,128\"}",
		VM_2CPU_32M_L3,
		"sharing one cache line cost 2 threads only 1.02x");
	const int cpus[] = {0, 1};
	json_t *s;

	(void)state;
	struct verdict v;
	s = sample(doc, "time", "separate", 2, NULL, 1.0, 0.01);
	json_object_set_new(s, "extra", json_pack("{s:f}", "overlap", 0.95));
	placement(doc, "threads=2 layout=separate", cpus, 2);
	s = sample(doc, "time", "shared, stride 64 B", 2, NULL, 1.02, 0.01);
	json_object_set_new(s, "extra", json_pack("{s:f}", "overlap", 0.95));
	placement(doc, "threads=2 layout=shared stride=64", cpus, 2);
	s = sample(doc, "time", "shared, stride 128 B", 2, NULL, 1.01, 0.01);
	json_object_set_new(s, "extra", json_pack("{s:f}", "overlap", 0.95));
	placement(doc, "threads=2 layout=shared stride=128", cpus, 2);
	describe(doc, &v);
	assert_true(verdict_says(
		&v,
		"counters 64 and 128 B apart sit in separate lines: no sharing to measure"));
	assert_false(verdict_says(&v, "cost"));
	json_decref(doc);
}

/* cache_sharing: one L3 for all cpus cannot show split; two sockets can */
static void cache_sharing_one_l3_and_several(void **state)
{
	json_t *doc = doc_new("cache_sharing", "{}", BOX_4CPU_ONE_L3, NULL);
	struct verdict v;

	(void)state;
	summary(doc, "pairs", 2);
	summary(doc, "working_set", 1 << 20);
	summary(doc, "cache_level", 3);
	sample(doc, "time", "one data set per pair", 0, "shared", 1.0, 0.01);
	sample(doc, "time", "each thread its own data set", 3, "separate_data",
	       1.5, 0.01);
	describe(doc, &v);
	assert_true(verdict_says(
		&v,
		"what splitting a pair across caches costs could not be shown"));
	assert_true(verdict_says(&v, "1.50× (1.47–1.53)"));
	json_decref(doc);

	doc = doc_new("cache_sharing", "{}", TWO_SOCKET_SMT, NULL);
	summary(doc, "pairs", 2);
	summary(doc, "working_set", 1 << 20);
	summary(doc, "cache_level", 3);
	sample(doc, "time", "one data set per pair", 0, "shared", 1.0, 0.01);
	sample(doc, "time", "one data set per pair", 1, "split", 2.0, 0.01);
	describe(doc, &v);
	assert_true(verdict_says(
		&v, "2.00× (1.96–2.04) longer split across L3 caches"));
	assert_false(verdict_has_level(&v, "cannot"));
	json_decref(doc);
}

/* what cannot be read back is said, not guessed */
static void refused_documents(void **state)
{
	struct verdict v;
	struct errinfo err;
	json_t *doc = doc_new("no_such_thing", "{}", VM_2CPU_32M_L3, NULL);

	(void)state;
	assert_int_equal(describe_doc(doc, &v, &err), -EINVAL);
	assert_string_equal(err.field, "experiment");
	assert_non_null(strstr(err.msg, "unknown experiment 'no_such_thing'"));
	assert_null(describe_doc_today(doc, NULL));
	json_decref(doc);
	doc = doc_new("false_sharing", "{\"threads\": \"many\"}",
		      VM_2CPU_32M_L3, NULL);
	assert_int_equal(describe_doc(doc, &v, &err), -EINVAL);
	assert_string_equal(err.field, "threads");
	json_decref(doc);
	/* an empty document of a known experiment: a verdict, no crash */
	doc = json_pack("{s:s}", "experiment", "atomic_increment");
	assert_int_equal(describe_doc(doc, &v, &err), 0);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(machine_record_matches_topology),
		cmocka_unit_test(scaling_claim_not_repeated),
		cmocka_unit_test(policy_from_cache_by_the_record),
		cmocka_unit_test(remote_default_under_big_l3),
		cmocka_unit_test(false_sharing_past_the_line),
		cmocka_unit_test(cache_sharing_one_l3_and_several),
		cmocka_unit_test(refused_documents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
