/* variable_layout.c - per-thread and read-mostly variables laid out the ways §6.4.1 ends with, and what TLS costs; each part a file */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_view.h"
#include "rates.h"
#include "selfpath.h"
#include "strbuf.h"
#include "workcost.h"

#include "vl.h"

static const struct param_choice part_names[] = {
	{"layouts", PART_LAYOUTS},
	{"readers", PART_READERS},
	{"tls_access", PART_TLS_ACCESS},
	{"thread_start", PART_THREAD_START},
	{0}};

#define PARAM_STRUCT struct vl_params
static const struct param params[] = {
	PARAM_INT(
		threads, "2", 1, VL_MAX_THREADS, "threads",
		"parts layouts, readers: threads updating their variables (layouts), or one writer and the rest readers (readers)",
		.flags = PARAM_F_CPUS, .only = "parts=layouts,readers"),
	PARAM_INT(
		ops, "10000000", 1, 10000000000LL, "per thread",
		"parts layouts, readers, tls_access: operations per thread and round: updates of a thread's two variables, reads of the read-mostly word, TLS accesses",
		.only = "parts=layouts,readers,tls_access"),
	PARAM_INT(
		starts, "200", 1, 1000000, "threads",
		"parts thread_start: threads started and joined per round to time TLS set-up",
		.only = "parts=thread_start"),
	PARAM_SET(
		parts, "all", part_names,
		"layouts: four layouts of per-thread variables; readers: a read-mostly word beside a written one or apart; tls_access: TLS in the program or in a dlopen'ed object; thread_start: starting threads with small and large TLS blocks"),
	{0}};

static const struct chart charts[] = {
	CHART(VL_LAYOUTS, CHART_BAR,
	      "Time per operation (two updates of a thread's own variables), by layout",
	      "layout", "ns per operation"),
	CHART(VL_FOOTPRINT, CHART_BAR,
	      "Memory each thread's two variables take, by layout", "layout",
	      "bytes per thread"),
	CHART(VL_READERS, CHART_BAR,
	      "Readers of a read-mostly word while another thread writes",
	      "where the read-mostly word is", "ns per read"),
	CHART(VL_TLS, CHART_BAR, "One access to a variable, by where it lives",
	      "variable", "ns per access (call included)"),
	CHART(VL_START, CHART_BAR,
	      "Starting and joining a thread that uses one thread-local variable",
	      "the thread uses", "µs per thread"),
	{0}};

static const char *const summary_keys[] = {"threads",
					   KEY_LAYOUT,
					   KEY_READER,
					   KEY_DSO_FOUND,
					   KEY_DSO_EXTRA,
					   KEY_BIG_START,
					   "exe_tls_block_bytes",
					   NULL};

/*
 * Opens name from the folder of the running binary or the one or two
 * folders above it (build/, and build/tests/unit/ for the unit tests), or
 * from lib/numalab/ of its install prefix. Returns 0 or -ENOENT.
 */
static int dso_open(const char *name, struct dso *d)
{
	char rel[4][64], path[PATH_MAX + 64];
	const char *rels[] = {rel[0], rel[1], rel[2], rel[3], NULL};

	memset(d, 0, sizeof(*d));
	snprintf(rel[0], sizeof(rel[0]), "%s", name);
	snprintf(rel[1], sizeof(rel[1]), "../%s", name);
	snprintf(rel[2], sizeof(rel[2]), "../../%s", name);
	snprintf(rel[3], sizeof(rel[3]), "../lib/numalab/%s", name);
	if (selfpath_find(rels, path, sizeof(path)) == 0)
		d->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!d->handle)
		return -ENOENT;
	*(void **)&d->bump = dlsym(d->handle, "tls_module_bump");
	*(void **)&d->get = dlsym(d->handle, "tls_module_get");
	*(void **)&d->bytes = dlsym(d->handle, "tls_module_bytes");
	if (!d->bump || !d->get || !d->bytes) {
		dlclose(d->handle);
		memset(d, 0, sizeof(*d));
		return -ENOENT;
	}
	return 0;
}

static void dso_close(struct dso *d)
{
	if (d->handle)
		dlclose(d->handle);
	memset(d, 0, sizeof(*d));
}

static int exe_tls_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_TLS)
			*(size_t *)data = info->dlpi_phdr[i].p_memsz;
	return 1; /* the first object is the program itself */
}

/* Bytes of the program's own TLS block, which every thread gets at creation. */
static size_t exe_tls_bytes(void)
{
	size_t bytes = 0;

	dl_iterate_phdr(exe_tls_cb, &bytes);
	return bytes;
}

/* The threads the run places: 'threads' where the layouts or the readers
 * race, else the one thread of the TLS parts ('threads' is not read). */
static int vl_threads(const struct vl_params *vp)
{
	return vl_asked(vp, PART_LAYOUTS) || vl_asked(vp, PART_READERS)
		       ? (int)vp->threads
		       : 1;
}

/* What run() prepares: the threads' cpus, and the objects the TLS parts
 * measure (opened only when one of them is asked for). */
static int prepare(struct run_ctx *ctx, struct vl_state *st, int *cpus)
{
	const struct vl_params *vp = ctx->params;
	struct errinfo perr;
	int rc;

	st->n = vl_threads(vp);
	st->cpus = cpus;
	rc = experiment_plan(ctx, st->n, cpus, &perr);
	if (rc) {
		sink_note(ctx->sink, "warn", "%s", perr.msg);
		return rc;
	}
	if (vl_asked(vp, PART_TLS_ACCESS) || vl_asked(vp, PART_THREAD_START)) {
		st->found = dso_open(DSO_SMALL, &st->small) == 0 &&
			    dso_open(DSO_BIG, &st->big) == 0;
		if (!st->found) {
			dso_close(&st->small);
			dso_close(&st->big);
		}
	}
	return 0;
}

static int vl_run(struct run_ctx *ctx)
{
	const struct vl_params *vp = ctx->params;
	int *cpus = calloc((size_t)vp->threads, sizeof(int));
	struct vl_state st = {0};
	int rc;

	if (!cpus)
		return -ENOMEM;
	rc = prepare(ctx, &st, cpus);
	if (rc)
		goto out;
	if (vl_asked(vp, PART_LAYOUTS) || vl_asked(vp, PART_READERS))
		sink_summary(ctx->sink, "threads", st.n, "threads");
	sink_summary(ctx->sink, "exe_tls_block_bytes", (double)exe_tls_bytes(),
		     "B");
	rc = experiment_run_parts(ctx, &st);
	if (!rc)
		sink_progress(ctx->sink, 1, 1, "done");
out:
	dso_close(&st.small);
	dso_close(&st.big);
	free(cpus);
	return rc;
}

/* --- what a run says --- */

/*
 * Why no layout could be told apart: the reason of the first comparison
 * a part disowned (the layouts', then the readers'), or NULL.
 */
static const char *first_failure(const struct verdict *v)
{
	static const char *const keys[] = {KEY_LAYOUT, KEY_READER};
	const char *why;
	int kind;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if ((why = verdict_qualifier_why(v, keys[i], &kind)) &&
		    kind == VERDICT_DISOWNED)
			return why;
	return NULL;
}

static void vl_describe(const struct run_result *r, struct verdict *v)
{
	char head[VERDICT_TEXT_LEN] = "";
	const char *fail;

	/* each part looks its points up only when it was asked for */
	experiment_describe_parts(r, v, head, sizeof(head));
	if (!r->complete)
		verdict_note(
			v, "warn",
			"the run did not finish: what it says rests on the parts measured");
	if (head[0])
		verdict_headline(v, "%s", head);
	else if ((fail = first_failure(v)))
		verdict_headline(
			v, "this run could not tell its layouts apart: %s",
			fail);
	else if (r->npoints)
		verdict_headline(
			v,
			"this run could not tell its layouts apart: the rounds varied more than the layouts differed (see the notes)");
}

static void vl_precheck(const void *params, const struct common_params *common,
			const struct topo *t, struct verdict *v)
{
	const struct vl_params *vp = params;
	int racing = vp->parts & ((1u << PART_LAYOUTS) | (1u << PART_READERS));
	int plan[VL_MAX_THREADS];
	struct errinfo err;

	if (!racing)
		return;
	if (vp->threads < 2) {
		verdict_note(
			v, "cannot",
			"with one thread no line is shared: the layouts and the readers need threads=2 or more");
		return;
	}
	if (t->nallowed < 2) {
		verdict_note(
			v, "cannot",
			"this process may use one cpu: two threads never write at once, so no layout can show false sharing");
		return;
	}
	if (common->placement == PLACE_OS && !common->cpus.n) {
		verdict_note(
			v, "warn",
			"the threads are not pinned (placement=os): they may share a cpu for parts of a round");
		return;
	}
	if (topo_plan(t, (enum place_strategy)common->placement, common->cpus.v,
		      common->cpus.n, (int)vp->threads, plan, &err))
		return;
	const struct topo_pu *first = topo_pu_by_os(t, plan[0]);
	int same = 1;
	for (int i = 1; i < vp->threads && first; i++) {
		const struct topo_pu *p = topo_pu_by_os(t, plan[i]);
		if (!p || p->core != first->core)
			same = 0;
	}
	if (same && first)
		verdict_note(
			v, "warn",
			"the %lld threads land on SMT siblings of one core, which share the L1: a shared line hardly moves there (placement=spread uses separate cores)",
			(long long)vp->threads);
}

/*
 * The classroom's questions, each on its own part: 30 million operations
 * make rounds of about 0.1 s on a 2-core VM, long enough that the two
 * threads overlap for most of one on a busy machine; 6 rounds are the
 * fewest whose median has a 95% interval of its own (stats.c).
 */
static const struct lesson lessons[] = {
	LESSON("global-array", "Counters in one global array",
	       "how many times slower are 2 threads updating counters of one global array than counters padded to a line each?",
	       "threads=2 parts=layouts ops=30000000 repeat=6 warmup=1", "x",
	       KEY_LAYOUT, VL_LAYOUTS),
	LESSON("read-mostly", "A read-mostly variable beside a written one",
	       "how many times longer does a read take when the variable shares its line with one another thread writes?",
	       "threads=2 parts=readers ops=30000000 repeat=6 warmup=1", "x",
	       KEY_READER, VL_READERS),
	{0}};

/* The rulebook (rules.h): what its comparisons need. */
static const struct rule rules[] = {RULE(RULE_TOGETHER, .param = "threads",
					 .floor = 0.25,
					 .what = "the slowdown of a layout"),
				    {RULE_END}};
static const char *const compared[] = {"layout_slowdown", "reader_slowdown",
				       NULL};

/* what a person reads for each summary key */
static const struct key_label summary_labels[] = {
	{"threads", "threads that read and write", "threads"},
	{KEY_LAYOUT, "slowdown of the packed layout", "×"},
	{KEY_READER, "slowdown of the reader beside writers", "×"},
	{KEY_DSO_FOUND, "TLS library found", "yes/no"},
	{KEY_DSO_EXTRA, "extra time of a library's TLS access", "ns"},
	{KEY_BIG_START, "extra thread start with a big TLS block", "µs"},
	{"exe_tls_block_bytes", "program's TLS block", "bytes"},
	{NULL, NULL, NULL}};

/*
 * Before the run: the cpus of each part's threads (the last thread of
 * the readers writes), and where its memory is: nothing is bound.
 */
static void vl_plan(const void *params, const struct common_params *common,
		    const struct topo *t, struct strbuf *out)
{
	const struct vl_params *vp = params;
	int n = vl_threads(vp), plan[VL_MAX_THREADS];
	struct errinfo err;

	if (topo_plan(t, (enum place_strategy)common->placement, common->cpus.v,
		      common->cpus.n, n, plan, &err)) {
		strbuf_addf(out, "threads: not placed: %s\n", err.msg);
		return;
	}
	if (vl_asked(vp, PART_LAYOUTS))
		plan_view_cpus(t, "layouts", plan, n, out);
	if (vl_asked(vp, PART_READERS) && n >= 2) {
		plan_view_cpus(t, "readers", plan, n - 1, out);
		plan_view_cpus(t, "writer", plan + n - 1, 1, out);
	}
	if (vl_asked(vp, PART_TLS_ACCESS) || vl_asked(vp, PART_THREAD_START))
		plan_view_cpus(t, "tls_access and thread_start (one thread)",
			       plan, 1, out);
	plan_view_first_touch(
		t,
		"the thread that starts the run zeroes the padded and grouped lines, the other variables are the program's or each thread's TLS",
		out);
}

/* The parts, in the order they run: each a file of this folder, the
 * harness running only those parts= names. */
static const char *const starts_reads[] = {"starts", NULL};
static const struct part parts[] = {
	{"layouts", vl_layouts_run, vl_layouts_say, vl_layouts_estimate, NULL,
	 NULL, LAY_N},
	{"readers", vl_readers_run, vl_readers_say, vl_readers_estimate, NULL,
	 NULL, AT_N},
	{"tls_access", vl_tls_access_run, vl_tls_access_say,
	 vl_tls_access_estimate, NULL, NULL, ACC_N},
	{"thread_start", vl_thread_start_run, vl_thread_start_say,
	 vl_thread_start_estimate, NULL, starts_reads, START_N},
	{0}};

/* defined below: the estimate sums the parts its parts= selects */
extern const struct experiment exp_variable_layout;

static void vl_estimate(const void *params, const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes)
{
	const struct vl_params *vp = params;

	/* the seconds are the parts'; the memory the run's whole */
	experiment_estimate_parts(&exp_variable_layout, params, common, t,
				  seconds, bytes);
	*bytes = (uint64_t)vp->threads * 2 * VL_APART + (2u << 20);
}

const struct experiment exp_variable_layout = {
	.parts = parts,
	.parts_param = "parts",
	.plan = vl_plan,
	.name = "variable_layout",
	.smoke = "threads=2 ops=1000 starts=2 repeat=2 warmup=0",
	.headline_key = KEY_LAYOUT,
	.headline_chart = VL_LAYOUTS,
	.title = "Variable layout and thread-local storage",
	.summary = "Per-thread variables in a global array, in TLS, padded or "
		   "grouped; a read-mostly word beside a written one or apart; "
		   "what TLS costs to reach and to set up",
	.section = "6.4.1",
	.explain =
		"False sharing is easy to cure by giving every variable a whole "
		"cache line, but that multiplies the memory a program touches. "
		"The end of the article's section on concurrency gives a "
		"cheaper recipe, and this experiment puts each step of it next "
		"to the layout it replaces.\n\n"
		"Layouts: each thread updates two variables of its own, over "
		"and over. In a global array the counters of neighbouring "
		"threads sit side by side, so every write takes the line away "
		"from the other cores. As __thread variables each thread gets "
		"its own copy in its own thread-local block, far from the "
		"others. Padded, each variable fills a line of its own; "
		"grouped, the two variables a thread uses together share one "
		"padded line, which keeps them apart from other threads at half "
		"the memory. The footprint chart shows what each layout costs "
		"in bytes per thread.\n\n"
		"Readers: a word that is only read can sit in every core's "
		"cache at once, unless a word in the same line is written: "
		"then each write throws it out of the readers' caches. One "
		"thread writes a counter while the others read a constant "
		"kept in the counter's line, in a section of its own (as the "
		"article suggests with section attributes), or in .rodata, "
		"where const puts it. The section is named numalab_read_mostly, "
		"without a dot: the default linker script folds every .data.* "
		"section into .data, beside written variables, while a name it "
		"does not know stays a section of its own (readelf -S shows "
		"it); the word is also aligned and padded to 128 B, two 64 B "
		"lines, because the adjacent-line prefetcher fetches lines in "
		"pairs (false_sharing and atomic_increment keep their words "
		"that far apart too).\n\n"
		"The cost of TLS: a __thread variable of the program is found "
		"at a fixed offset from the thread pointer, but one in a shared "
		"object loaded with dlopen needs a call to __tls_get_addr to "
		"find this thread's copy. And the first touch of any variable "
		"of such an object allocates and zeroes the object's whole TLS "
		"block for that thread: starting threads that touch one small "
		"variable beside a 1 MiB array shows the price. The two small "
		"shared objects are built by make next to the binary; without "
		"them those parts are skipped and the verdict says so.",
	EXPERIMENT_PARTS(vl),
	.uses_placement = 1,
};
