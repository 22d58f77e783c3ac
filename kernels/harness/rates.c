/* rates.c - what this machine does per unit of work, measured in a fraction of a second, for run-time estimates */
#define _GNU_SOURCE
#include "rates.h"
#include "version.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static struct rates current;
static int current_set;
static __thread const struct rates *here;
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

	if (here)
		return here;
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

void rates_use_here(const struct rates *r)
{
	here = r;
}

void rates_set(const struct rates *r)
{
	pthread_mutex_lock(&current_lock);
	current = *r;
	current_set = 1;
	pthread_mutex_unlock(&current_lock);
}

/* ---- the cache file ---- */

void rates_fingerprint(const struct topo *t, char *buf, size_t len)
{
	struct utsname u;
	struct topo *here = t && !t->thissystem ? topo_load_here() : NULL;

	if (here)
		t = here;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	/* the build's flags too: a build under coverage or a sanitizer runs
	 * the kernels tens of times slower, and must not take a normal
	 * build's rates (nor leave it its own) */
	snprintf(buf, len, "%s|%d|%s|%s%s%s", t ? t->cpu_model : "?",
		 t ? t->npus : 0, u.release, numalab_version(),
#ifdef NUMALAB_FLAVOR
		 " ", NUMALAB_FLAVOR
#else
		 "", ""
#endif
	);
	for (char *c = buf; *c; c++)
		if (*c == '\n' || *c == '=')
			*c = ' ';
	topo_free(here);
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

int rates_guessed(const struct rates *r, char *names, size_t len)
{
	/* what each rate times, as `numalab rates` lists it */
	static const struct {
		size_t off;
		const char *what;
	} rows[] = {{offsetof(struct rates, inc_ns), "increment"},
		    {offsetof(struct rates, bounce_ns),
		     "increment of a shared line"},
		    {offsetof(struct rates, atomic_ns), "atomic add"},
		    {offsetof(struct rates, atomic_shared_ns),
		     "atomic add of a shared line"},
		    {offsetof(struct rates, read_gbs), "read"},
		    {offsetof(struct rates, write_gbs), "write"},
		    {offsetof(struct rates, touch_page_ns), "first touch"},
		    {offsetof(struct rates, team_s), "team"},
		    {offsetof(struct rates, rtt_ns), "round trip"},
		    {offsetof(struct rates, start_s), "worker's start"},
		    {offsetof(struct rates, spawn_ns), "thread start"}};
	struct rates d;
	int n = 0;

	rates_default(&d);
	if (names && len)
		names[0] = '\0';
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double v, g;
		memcpy(&v, (const char *)r + rows[i].off, sizeof(v));
		memcpy(&g, (const char *)&d + rows[i].off, sizeof(g));
		/* a rate calibrate could not measure keeps the guess exactly
		 * (and the cache writes the guesses back exactly) */
		if (r->measured && v != g)
			continue;
		if (names && len)
			snprintf(names + strlen(names), len - strlen(names),
				 "%s%s", n ? ", " : "", rows[i].what);
		n++;
	}
	return n;
}

void rates_said(char *buf, size_t len)
{
	const struct rates *r = rates_get();
	int guessed = rates_guessed(r, NULL, 0);

	if (!r->measured)
		snprintf(buf, len, "built-in guesses, no rates measured here");
	else if (r->standin && guessed)
		snprintf(
			buf, len,
			"this machine's rates, not the topology's, %d built-in",
			guessed);
	else if (r->standin)
		snprintf(buf, len, "this machine's rates, not the topology's");
	else if (guessed)
		snprintf(buf, len, "the rates measured here, %d built-in",
			 guessed);
	else
		snprintf(buf, len, "the rates measured here");
}

int rates_load(const char *path, const char *fingerprint, struct rates *r)
{
	FILE *f = fopen(path, "re");
	char line[512];
	int fp_ok = 0, bad = 0, nvals = 0, want = 0;

	if (!f)
		return -errno;
	rates_default(r);
#define COUNT(name) want++;
	RATE_FIELDS(COUNT)
#undef COUNT
	while (fgets(line, sizeof(line), f)) {
		char *eq, *end;
		double v;
		int ok;

		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "machine=", 8)) {
			fp_ok = !strcmp(line + 8, fingerprint);
			continue;
		}
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		v = strtod(eq + 1, &end);
		/* inf is over 0, and an estimate of "about inf s" followed
		 * from it: a rate is a positive finite number or the file is
		 * bad */
		ok = end > eq + 1 && !*end && isfinite(v) && v > 0;
#define READ(name)                                                             \
	if (!strcmp(line, #name)) {                                            \
		bad |= !ok;                                                    \
		r->name = v;                                                   \
		nvals++;                                                       \
	}
		RATE_FIELDS(READ)
#undef READ
	}
	fclose(f);
	if (!fp_ok || bad || nvals != want) {
		rates_default(r);
		return fp_ok && bad ? -EINVAL : -ESTALE;
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

/* What rates_init says beside its rates: a bad cache replaced, rates not
 * measured (cal) or not saved (saved), each -errno; "" when all went well. */
static void init_note(char *note, size_t len, const char *path, int loaded,
		      int cal, int saved)
{
	if (!note || !len)
		return;
	note[0] = '\0';
	if (cal)
		snprintf(note, len,
			 "the rates could not be measured (%s): the built-in "
			 "guesses are used, not saved",
			 strerror(-cal));
	else if (loaded == -EINVAL)
		snprintf(note, len,
			 "the rates cached in %s held a rate that is not a "
			 "positive finite number: ignored, measured again%s%s",
			 path, saved ? ", and not saved: " : "",
			 saved ? strerror(-saved) : "");
	else if (saved)
		snprintf(note, len, "the rates were not saved in %s: %s", path,
			 strerror(-saved));
}

int rates_init(const struct topo *t, const char *path, char *note, size_t len)
{
	struct topo *here = NULL;
	struct rates r;
	char fp[512];
	int cal = 0, saved = 0, loaded = -ENOENT;

	/*
	 * A topology file's cpus are not this machine's: calibrated on them,
	 * the rates a pair of cpus times stayed the guesses and went into the
	 * cache as measured, over this machine's own. This machine's rates
	 * stand in instead, said as such.
	 */
	if (t && !t->thissystem) {
		here = topo_load_here();
		if (!here) {
			rates_default(&r);
			rates_set(&r);
			init_note(note, len, path, 0, -ENODEV, 0);
			return -ENODEV;
		}
		t = here;
	}
	rates_fingerprint(t, fp, sizeof(fp));
	if (path)
		loaded = rates_load(path, fp, &r);
	if (loaded != 0) {
		rates_default(&r);
		cal = rates_calibrate(t, &r);
		/* under a topology file nothing is written: the cache is
		 * this machine's, refreshed by a plain `numalab rates` */
		if (cal == 0 && path && !here) {
			make_parent(path);
			saved = rates_save(path, fp, &r);
		}
	}
	r.standin = here != NULL;
	rates_set(&r);
	topo_free(here);
	init_note(note, len, path, loaded, cal, saved);
	return cal ? cal : saved;
}
