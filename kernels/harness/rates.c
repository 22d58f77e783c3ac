/* rates.c - what this machine does per unit of work, measured in a fraction of a second, for run-time estimates */
#define _GNU_SOURCE
#include "rates.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bw.h"
#include "stats.h"
#include "team.h"

static struct rates current;
static int current_set;
static pthread_mutex_t current_lock = PTHREAD_MUTEX_INITIALIZER;

void rates_default(struct rates *r)
{
	memset(r, 0, sizeof(*r));
	/* deliberately pessimistic: better to refuse late than to kill a run */
	r->inc_ns = 1.0;
	r->bounce_ns = 50.0;
	r->atomic_ns = 10.0;
	r->atomic_shared_ns = 250.0;
	r->read_gbs = 1.0;
	r->write_gbs = 1.0;
	r->touch_page_ns = 2000.0;
	r->team_s = 1e-3;
	r->rtt_ns = 1000.0;
	r->start_s = 0.5;
	r->spawn_ns = 100000.0;
	r->measured = 0;
	snprintf(r->source, sizeof(r->source), "built-in");
}

const struct rates *rates_get(void)
{
	static struct rates fallback;
	const struct rates *r;

	pthread_mutex_lock(&current_lock);
	if (!current_set) {
		rates_default(&fallback);
		current = fallback;
		current_set = 1;
	}
	r = &current;
	pthread_mutex_unlock(&current_lock);
	return r;
}

void rates_set(const struct rates *r)
{
	pthread_mutex_lock(&current_lock);
	current = *r;
	current_set = 1;
	pthread_mutex_unlock(&current_lock);
}

/* ---- the measurements ---- */

struct spin_job {
	void *line; /* 64-byte aligned */
	long n;
	int atomic;
	int stride; /* bytes between the two threads' counters (0: one counter)
		     */
};

static void spin_body(void *arg, int tid, int round)
{
	const struct spin_job *j = arg;
	char *base = j->line;

	(void)round;
	if (j->atomic) {
		uint64_t *c = (uint64_t *)(base + (size_t)tid * j->stride);
		for (long i = 0; i < j->n; i++)
			__atomic_fetch_add(c, 1, __ATOMIC_SEQ_CST);
	} else {
		volatile uint32_t *c =
			(volatile uint32_t *)(base + (size_t)tid * j->stride);
		for (long i = 0; i < j->n; i++)
			*c = *c + 1;
	}
}

static double min_of(const double *v, int n)
{
	double m = v[0];

	for (int i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

/* Seconds per operation of n ops on each of nthreads threads, or -1. */
static double per_op(const struct topo *t, const int *cpus, int nthreads,
		     int atomic, int stride, long n)
{
	struct spin_job j = {.n = n, .atomic = atomic, .stride = stride};
	struct team_job job = {.nthreads = nthreads,
			       .cpus = cpus,
			       .arg = &j,
			       .body = spin_body,
			       .warmup = 1,
			       .repeat = 5};
	struct team_result res;
	double best = -1;

	j.line = aligned_alloc(4096, 4096);
	if (!j.line)
		return -1;
	memset(j.line, 0, 4096);
	/*
	 * One thread: the best round (nothing it waits for can only slow it
	 * down). Two: the median, as the experiments report it; on a busy
	 * machine the best round is often one where the threads took turns
	 * and nothing bounced.
	 */
	if (team_run(&job, t, &res) == 0 && res.rounds > 0)
		best = nthreads > 1 ? stats_median(res.seconds, res.rounds)
				    : min_of(res.seconds, res.rounds);
	team_result_free(&res);
	free(j.line);
	return best > 0 ? best / (double)n : -1;
}

static void noop_body(void *arg, int tid, int round)
{
	(void)arg;
	(void)tid;
	(void)round;
}

/* Seconds to start, run one empty round of and join a pinned team: the best
 * of 3. */
static double team_cost(const struct topo *t, const int *cpus, int nthreads)
{
	struct team_job job = {.nthreads = nthreads,
			       .cpus = cpus,
			       .body = noop_body,
			       .repeat = 1};
	double best = -1;

	for (int i = 0; i < 3; i++) {
		struct team_result res;
		double t0 = clock_now(), dt;
		int rc = team_run(&job, t, &res);

		dt = clock_now() - t0;
		team_result_free(&res);
		if (rc)
			return -1;
		if (best < 0 || dt < best)
			best = dt;
	}
	return best;
}

/*
 * Seconds since this process started (exec, libraries, the topology it
 * read): a worker pays the same before its first measurement. From
 * /proc/self/stat's start time, in clock ticks since boot; -1 when unknown.
 */
static double process_age(void)
{
	FILE *f = fopen("/proc/self/stat", "re");
	char buf[1024], *p;
	unsigned long long start = 0;
	struct timespec now;
	long hz = sysconf(_SC_CLK_TCK);
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the command name may hold spaces */
	/* after ") ": state is field 3; starttime is field 22 */
	if (!p || hz <= 0 ||
	    sscanf(p + 2,
		   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   &start) != 1 ||
	    clock_gettime(CLOCK_BOOTTIME, &now))
		return -1;
	return (double)now.tv_sec + now.tv_nsec * 1e-9 -
	       (double)start / (double)hz;
}

/*
 * What a worker costs before its first measurement: a fresh topology
 * read, or this process's own start where that took longer. Called first
 * in rates_calibrate, so the age is the start's and not the calibration's
 * own. An age past a quarter of a second (a server that has run a while,
 * or a start that waited long for a cpu) says nothing about a start: then
 * the topology read alone. It used to be capped at a quarter of a second
 * instead, which made every estimate 0.25 s long at least, where a
 * whole run of cache_sharing takes 0.07 s on a quiet lab VM.
 */
static double start_cost(void)
{
	double t0 = clock_now(), dt, age = process_age();
	struct topo *t = topo_load();

	if (!t)
		return -1;
	topo_free(t);
	dt = clock_now() - t0;
	if (age > dt && age < 0.25)
		dt = age;
	return dt;
}

static void *empty_thread(void *arg)
{
	return arg;
}

/* Nanoseconds to create and join a thread: the best of 20, or -1. */
static double spawn_cost(void)
{
	double best = -1;

	for (int i = 0; i < 20; i++) {
		pthread_t th;
		double t0 = clock_now(), dt;

		if (pthread_create(&th, NULL, empty_thread, NULL))
			return -1;
		pthread_join(th, NULL);
		dt = clock_now() - t0;
		if (best < 0 || dt < best)
			best = dt;
	}
	return best * 1e9;
}

struct trip_job {
	_Atomic uint64_t *line;
	long trips;
	/*
	 * A hand-over needs both threads on a cpu at once: beside a machine's
	 * worth of other runnable threads each trip can wait a time slice, and
	 * 20,000 of them took minutes (64 runs started at once on 2 cpus).
	 * Past this clock reading the threads give up and the default stays.
	 */
	double give_up_at;
	_Atomic int gave_up;
};

/* Whether to stop waiting: looked at once every 4,096 spins. */
static int trip_late(struct trip_job *j, unsigned *spins)
{
	if ((++*spins & 4095) != 0)
		return 0;
	if (atomic_load_explicit(&j->gave_up, memory_order_relaxed))
		return 1;
	if (clock_now() < j->give_up_at)
		return 0;
	atomic_store_explicit(&j->gave_up, 1, memory_order_relaxed);
	return 1;
}

/* Thread 0 hands the line over with an odd value, thread 1 answers with the
 * next even one. */
static void trip_body(void *arg, int tid, int round)
{
	struct trip_job *j = arg;
	uint64_t base = (uint64_t)round * 2 * (uint64_t)j->trips;
	unsigned spins = 0;

	for (long i = 0; i < j->trips; i++) {
		uint64_t v = base + 2 * (uint64_t)i;
		if (tid == 0) {
			atomic_store_explicit(j->line, v + 1,
					      memory_order_release);
			while (atomic_load_explicit(
				       j->line, memory_order_acquire) != v + 2)
				if (trip_late(j, &spins))
					return;
		} else {
			while (atomic_load_explicit(
				       j->line, memory_order_acquire) != v + 1)
				if (trip_late(j, &spins))
					return;
			atomic_store_explicit(j->line, v + 2,
					      memory_order_release);
		}
	}
}

/* The whole round-trip calibration may take this long, in seconds; quiet,
 * its 6 rounds of 20,000 trips take about 10 ms. */
#define TRIP_GIVE_UP_S 1.0

/* Seconds per round trip of one line between the two cpus (best round), or -1.
 */
static double round_trip(const struct topo *t, const int *cpus, long trips)
{
	struct trip_job j = {.trips = trips};
	struct team_job job = {.nthreads = 2,
			       .cpus = cpus,
			       .arg = &j,
			       .body = trip_body,
			       .warmup = 1,
			       .repeat = 5,
			       .spin = 1};
	struct team_result res;
	double best = -1;

	j.line = aligned_alloc(4096, 4096);
	if (!j.line)
		return -1;
	atomic_store(j.line, 0);
	atomic_init(&j.gave_up, 0);
	j.give_up_at = clock_now() + TRIP_GIVE_UP_S;
	/* the median round, as core_to_core reports a pair; none at all when
	 * the machine was too busy to hand the line over in time */
	if (team_run(&job, t, &res) == 0 && res.rounds > 0 &&
	    !atomic_load(&j.gave_up))
		best = stats_median(res.seconds, res.rounds);
	team_result_free(&res);
	free((void *)j.line);
	return best > 0 ? best / (double)trips : -1;
}

/*
 * The buffer the memory rates stream over: 64 MiB, past the last-level
 * cache of most machines; a larger one would make the calibration cost
 * more than the quarter of a second it is allowed (first touch alone runs
 * at 5-20 us a page in a VM). On a machine whose caches hold it, the
 * rates come out high and estimates low: the bench row of estimate over
 * actual shows by how much.
 */
static size_t memory_bytes(const struct topo *t)
{
	(void)t;
	return (size_t)64 << 20;
}

#define TOUCH_PARTS 16

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void memory_rates(const struct topo *t, struct rates *r)
{
	size_t len = memory_bytes(t);
	enum bw_isa isa = bw_isa_best();
	double t0, best_r = -1, best_w = -1;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	/*
	 * First touch in TOUCH_PARTS parts, each timed: the median part is
	 * the rate. One timing of the whole took in whatever preemption a
	 * busy machine dealt it (4x between two calibrations a minute apart
	 * on the lab VM).
	 */
	double part_s[TOUCH_PARTS];
	size_t part = len / TOUCH_PARTS;

	for (int k = 0; k < TOUCH_PARTS; k++) {
		t0 = clock_now();
		for (size_t off = 0; off < part; off += 4096)
			p[(size_t)k * part + off] = 1;
		part_s[k] = clock_now() - t0;
	}
	qsort(part_s, TOUCH_PARTS, sizeof(double), cmp_double);
	r->touch_page_ns =
		part_s[TOUCH_PARTS / 2] / (double)(part / 4096) * 1e9;
	/* the best of 4 passes each way (a pass is a few ms): a preempted
	 * pass gave 179 MB/s once */
	for (int i = 0; i < 4; i++) {
		double dt;
		t0 = clock_now();
		bw_kernel_isa(isa, BW_WRITE, p, NULL, len, 7);
		dt = clock_now() - t0;
		if (best_w < 0 || dt < best_w)
			best_w = dt;
		t0 = clock_now();
		bw_kernel_isa(isa, BW_READ, NULL, p, len, 0);
		dt = clock_now() - t0;
		if (best_r < 0 || dt < best_r)
			best_r = dt;
	}
	if (best_r > 0)
		r->read_gbs = (double)len / best_r / 1e9;
	if (best_w > 0)
		r->write_gbs = (double)len / best_w / 1e9;
	munmap(p, len);
}

static int rates_calibrate(const struct topo *t, struct rates *r)
{
	int cpus[2] = {-1, -1}, n = 0;
	double v;

	rates_default(r);
	for (int i = 0; t && i < t->npus && n < 2; i++)
		if (t->pu[i].allowed)
			cpus[n++] = t->pu[i].os;
	if (n == 0)
		return -ENODEV;
	/* first: the process's age is still its start's */
	if ((v = start_cost()) > 0)
		r->start_s = v;
	if ((v = per_op(t, cpus, 1, 0, 0, 2000000)) > 0)
		r->inc_ns = v * 1e9;
	if ((v = per_op(t, cpus, 1, 1, 0, 1000000)) > 0)
		r->atomic_ns = v * 1e9;
	if (n == 2) {
		/* two counters in one line: false sharing's worst case */
		if ((v = per_op(t, cpus, 2, 0, 4, 500000)) > 0)
			r->bounce_ns = v * 1e9;
		if ((v = per_op(t, cpus, 2, 1, 0, 300000)) > 0)
			r->atomic_shared_ns = v * 1e9;
		if ((v = round_trip(t, cpus, 20000)) > 0)
			r->rtt_ns = v * 1e9;
	} else {
		/* one CPU: nothing bounces; the threads take turns */
		r->bounce_ns = r->inc_ns;
		r->atomic_shared_ns = r->atomic_ns;
	}
	if ((v = team_cost(t, cpus, n)) > 0)
		r->team_s = v;
	if ((v = spawn_cost()) > 0)
		r->spawn_ns = v;
	memory_rates(t, r);
	r->measured = 1;
	snprintf(r->source, sizeof(r->source), "calibrated");
	return 0;
}

/* ---- the cache file ---- */

void rates_fingerprint(const struct topo *t, char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	snprintf(buf, len, "%s|%d|%s|%s", t ? t->cpu_model : "?",
		 t ? t->npus : 0, u.release,
#ifdef NUMALAB_VERSION
		 NUMALAB_VERSION
#else
		 "unknown"
#endif
	);
	for (char *c = buf; *c; c++)
		if (*c == '\n' || *c == '=')
			*c = ' ';
}

#define RATE_FIELDS(X)                                                         \
	X(inc_ns)                                                              \
	X(bounce_ns)                                                           \
	X(atomic_ns)                                                           \
	X(atomic_shared_ns)                                                    \
	X(read_gbs)                                                            \
	X(write_gbs)                                                           \
	X(touch_page_ns)                                                       \
	X(team_s)                                                              \
	X(rtt_ns)                                                              \
	X(start_s)                                                             \
	X(spawn_ns)

int rates_load(const char *path, const char *fingerprint, struct rates *r)
{
	FILE *f = fopen(path, "re");
	char line[512], key[64];
	double v;
	int fp_ok = 0, nvals = 0, want = 0;

	if (!f)
		return -errno;
	rates_default(r);
#define COUNT(name) want++;
	RATE_FIELDS(COUNT)
#undef COUNT
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "machine=", 8)) {
			fp_ok = !strcmp(line + 8, fingerprint);
			continue;
		}
		if (sscanf(line, "%63[a-z_]=%lf", key, &v) != 2 || !(v > 0))
			continue;
#define READ(name)                                                             \
	if (!strcmp(key, #name)) {                                             \
		r->name = v;                                                   \
		nvals++;                                                       \
	}
		RATE_FIELDS(READ)
#undef READ
	}
	fclose(f);
	if (!fp_ok || nvals != want) {
		rates_default(r);
		return -ESTALE;
	}
	r->measured = 1;
	snprintf(r->source, sizeof(r->source), "cached");
	return 0;
}

int rates_save(const char *path, const char *fingerprint, const struct rates *r)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "# numalab's measured rates (remove to measure again)\n");
	fprintf(f, "machine=%s\n", fingerprint);
#define WRITE(name) fprintf(f, #name "=%.6g\n", r->name);
	RATE_FIELDS(WRITE)
#undef WRITE
	if (fclose(f) || rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		return -e;
	}
	return 0;
}

void rates_default_path(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (xdg && *xdg)
		snprintf(buf, len, "%s/numalab/rates", xdg);
	else if (home && *home)
		snprintf(buf, len, "%s/.cache/numalab/rates", home);
	else
		snprintf(buf, len, "/tmp/numalab-rates-%d", (int)getuid());
}

/* mkdir -p of path's folder; errors show up when the file is written. */
static void make_parent(const char *path)
{
	char dir[4096];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return;
	*slash = '\0';
	for (char *c = dir + 1; *c; c++)
		if (*c == '/') {
			*c = '\0';
			mkdir(dir, 0755);
			*c = '/';
		}
	mkdir(dir, 0755);
}

int rates_init(const struct topo *t, const char *path)
{
	struct rates r;
	char fp[512];
	int rc;

	rates_fingerprint(t, fp, sizeof(fp));
	if (path && rates_load(path, fp, &r) == 0) {
		rates_set(&r);
		return 0;
	}
	rc = rates_calibrate(t, &r);
	rates_set(&r);
	if (rc == 0 && path) {
		make_parent(path);
		rates_save(path, fp, &r);
	}
	return rc;
}
