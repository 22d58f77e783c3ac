/* estimate_history.c - the shares of a cpu probed over the last minute, kept between estimates, so that one moment's probe does not make the estimate */
#define _GNU_SOURCE
#include "estimate_history.h"
#include "rates.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

double room_mean(const struct room_seen *v, int n, double now, int want,
		 int *used)
{
	double sum = 0;
	int k = 0;

	for (int i = 0; i < n; i++)
		if (v[i].want == want && v[i].at <= now &&
		    now - v[i].at <= ROOM_WINDOW_S && v[i].share > 0) {
			sum += v[i].share;
			k++;
		}
	if (used)
		*used = k;
	return k ? sum / k : -1;
}

/* The probes in path, at most ROOM_KEPT; 0 when there is no file. */
static int room_read(const char *path, struct room_seen *v)
{
	FILE *f = fopen(path, "re");
	int n = 0;

	if (!f)
		return 0;
	while (n < ROOM_KEPT &&
	       fscanf(f, "%lf %d %lf", &v[n].at, &v[n].want, &v[n].share) == 3)
		n++;
	fclose(f);
	return n;
}

/* Writes v[0..n) to path through a temporary file and a rename, so that
 * an estimate beside another reads the one or the other whole. */
static void room_write(const char *path, const struct room_seen *v, int n)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	f = fopen(tmp, "we");
	if (!f)
		return;
	for (int i = 0; i < n; i++)
		fprintf(f, "%.3f %d %.4f\n", v[i].at, v[i].want, v[i].share);
	if (fclose(f) || rename(tmp, path))
		unlink(tmp);
}

double room_history(const char *path, double now, int want, double share,
		    int *used)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static struct room_seen own[ROOM_KEPT];
	static int nown;
	struct room_seen v[ROOM_KEPT + 1], kept[ROOM_KEPT];
	int n, nkept = 0;
	double mean;

	pthread_mutex_lock(&mu);
	n = path ? room_read(path, v) : 0;
	if (!n) {
		memcpy(v, own, sizeof(own[0]) * (size_t)nown);
		n = nown;
	}
	mean = room_mean(v, n, now, want, used);
	v[n++] = (struct room_seen){.at = now, .want = want, .share = share};
	/* the newest ROOM_KEPT within the window */
	for (int i = n - 1; i >= 0 && nkept < ROOM_KEPT; i--)
		if (v[i].at <= now && now - v[i].at <= ROOM_WINDOW_S)
			kept[nkept++] = v[i];
	for (int i = 0; i < nkept / 2; i++) {
		struct room_seen s = kept[i];
		kept[i] = kept[nkept - 1 - i];
		kept[nkept - 1 - i] = s;
	}
	memcpy(own, kept, sizeof(kept[0]) * (size_t)nkept);
	nown = nkept;
	if (path)
		room_write(path, kept, nkept);
	pthread_mutex_unlock(&mu);
	return mean;
}

void room_default_path(char *buf, size_t len)
{
	char rates[4096], *slash;

	rates_default_path(rates, sizeof(rates));
	slash = strrchr(rates, '/');
	if (slash && !strcmp(slash, "/rates")) {
		*slash = '\0';
		snprintf(buf, len, "%s/room", rates);
	} else {
		snprintf(buf, len, "%s-room", rates);
	}
}
