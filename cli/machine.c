/* machine.c - the machine a run is measured on, probed from /proc and /sys */
#include "machine.h"
#include "version.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "schema.h"

/* The first line of a file, without its newline; NULL if unreadable. */
static json_t *read_line(const char *path)
{
	char buf[512];
	FILE *f = fopen(path, "r");

	if (!f)
		return json_null();
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return json_null();
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return json_string(buf);
}

/* "always [madvise] never" -> "madvise" */
static json_t *bracketed(const char *path)
{
	json_t *line = read_line(path);
	const char *s = json_string_value(line), *a, *b;
	json_t *r;

	if (!s)
		return line;
	a = strchr(s, '[');
	b = a ? strchr(a, ']') : NULL;
	r = a && b ? json_stringn(a + 1, (size_t)(b - a - 1)) : json_string(s);
	json_decref(line);
	return r;
}

static json_t *cpu_flags(void)
{
	static const char *const wanted[] = {
		"avx",	       "avx2",		"avx512f", "avx512bw",
		"sse4_2",      "fma",		"rdtscp",  "constant_tsc",
		"nonstop_tsc", "clflushopt",	"clwb",	   "movdir64b",
		"prefetchw",   "3dnowprefetch", "sve",	   "asimd",
		NULL};
	char line[8192];
	json_t *out = json_array();
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return out;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) && strncmp(line, "Features", 8))
			continue;
		for (int i = 0; wanted[i]; i++) {
			char pat[40];
			snprintf(pat, sizeof(pat), " %s", wanted[i]);
			char *hit = strstr(line, pat);
			size_t len = strlen(pat);
			if (hit && (hit[len] == ' ' || hit[len] == '\n' ||
				    hit[len] == '\0'))
				json_array_append_new(out,
						      json_string(wanted[i]));
		}
		break;
	}
	fclose(f);
	return out;
}

json_t *machine_json(const struct topo *t)
{
	struct utsname u;
	char host[256] = "";
	/* the harness's own probe, so a live verdict and this record agree */
	int vm = topo_hypervisor() == 1, emu = topo_emulator() == 1;
	/* the host's flags and architecture are the topology's only when
	 * the topology is this system's */
	json_t *flags = t->thissystem ? cpu_flags() : json_null();
	json_t *caches = json_array();
	json_t *freq = read_line(
		"/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq");
	json_t *dist = json_array();

	for (int i = 0; i < t->ncaches; i++)
		if (t->cache[i].logical == 0)
			json_array_append_new(
				caches, json_pack("{s:i, s:I, s:i}", "level",
						  t->cache[i].level, "size",
						  (json_int_t)t->cache[i].size,
						  "instances_of_npus",
						  t->cache[i].npus));
	for (int i = 0; i < t->nnodes; i++)
		json_array_append_new(dist, schema_distances(t, i));
	if (json_is_string(freq)) {
		/* kHz in sysfs */
		double mhz = atof(json_string_value(freq)) / 1000.0;
		json_decref(freq);
		freq = json_real(round(mhz));
	}
	uname(&u);
	gethostname(host, sizeof(host) - 1);
	return json_pack(
		"{s:s, s:s, s:s, s:o, s:i, s:i, s:i, s:i, s:b, s:o, s:o, s:o,"
		" s:o, s:o, s:o, s:b, s:b, s:s, s:s, s:s, s:s, s:b}",
		"hostname", host, "cpu_model", t->cpu_model, "kernel",
		u.release, "arch",
		t->thissystem ? json_string(u.machine)
		: t->arch[0]  ? json_string(t->arch)
			      : json_null(),
		"packages", t->npackages, "cores", t->ncores, "pus", t->npus,
		"nodes", t->nnodes, "smt", t->smt, "caches", caches,
		"distances", dist, "flags", flags, "thp",
		bracketed("/sys/kernel/mm/transparent_hugepage/enabled"),
		"governor",
		read_line(
			"/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
		"cur_freq_mhz", freq, "vm", vm, "emulator", emu, "compiler",
		__VERSION__, "cflags", NUMALAB_CFLAGS, "version",
		numalab_version(), "topology", t->source, "this_system",
		t->thissystem);
}
