/* rates.h - what this machine does per unit of work, measured in a fraction of a second, for run-time estimates */
#ifndef NUMALAB_RATES_H
#define NUMALAB_RATES_H

#include "topo.h"

/*
 * The rates an experiment's estimate multiplies its work by. Measured by
 * rates_calibrate() on the machine that will run (not constants), kept in
 * a small cache file keyed by the machine, and refreshed when the machine
 * changes (another CPU model, CPU count, kernel or numalab version).
 */
struct rates {
	double inc_ns;		 /* a volatile increment of a private counter */
	double bounce_ns;	 /* the same when 2 threads write one line */
	double atomic_ns;	 /* an uncontended lock add */
	double atomic_shared_ns; /* a lock add on a line 2 threads fight for */
	double read_gbs;	 /* one thread reading memory past the caches */
	double write_gbs;	 /* one thread writing memory past the caches */
	double touch_page_ns;	 /* first touch of a fresh 4 KiB page */
	double team_s;		 /* start and join a pinned team of 2 */
	double rtt_ns;		 /* a line handed to another CPU and back */
	double start_s;	 /* a worker's start: exec, libraries, topology */
	double spawn_ns; /* pthread_create and join of an empty thread */
	int measured;	 /* 1: measured here; 0: the built-in guesses */
	/*
	 * 1: measured on this machine for a topology that is not this
	 * system's (a topology file), whose own rates nothing here can measure
	 */
	int standin;
	char source[64]; /* "calibrated", "cached", "built-in" */
};

/* What the estimates use: the rates set last, or built-in guesses. Thread-safe
 * to read. */
const struct rates *rates_get(void);
/* Makes r the rates every estimate uses from now on. */
void rates_set(const struct rates *r);
/* Fills r with the built-in guesses (measured = 0). */
void rates_default(struct rates *r);

/*
 * The cache: rates_load reads path and returns 0 only when it was made on
 * a machine with this fingerprint and holds every rate as a positive
 * finite number: -ESTALE when it is another machine's or lacks a rate,
 * -EINVAL when it holds a rate that is no such number (inf, 0, -1, nan),
 * -errno when it cannot be read; r then holds the built-in guesses.
 * rates_save writes it atomically. The fingerprint names the CPU model,
 * CPU count, kernel release and version: this machine's (t), or, where t
 * is not this system, that of this machine itself, whose rates are the
 * ones measured.
 */
void rates_fingerprint(const struct topo *t, char *buf, size_t len);
int rates_load(const char *path, const char *fingerprint, struct rates *r);
int rates_save(const char *path, const char *fingerprint,
	       const struct rates *r);

/*
 * Measures r on this machine (rates_calibrate.c), each rate timed so that what
 * a busy machine makes a thread wait stays out (the cpu's clocks, the rounds
 * run together, the median of short windows): the rates are the machine's, and
 * estimate_now adds the load of the moment. A rate that cannot be measured
 * keeps what r held (fill it with rates_default first). Returns 0, or -ENODEV
 * when no cpu is allowed.
 */
int rates_calibrate(const struct topo *t, struct rates *r);

/*
 * Seconds of a worker's start (rates_start.c): the median of 5 starts of
 * numalab-worker, the program the server execs for each run, timed from
 * its spawn to its reaping (its cpu time where it waited for a cpu); where
 * there is none beside this binary, this process's own start or a
 * topology read. rates_calibrate calls it first, while this process's age
 * is still its start's. -1 when neither could be measured.
 */
double rates_start_cost(void);

/*
 * Seconds of a worker's start now, the waits for a cpu included: the
 * median of 3 starts of numalab-worker (a few ms on a quiet machine), for
 * an estimate to set beside rates.start_s. -1 where there is no
 * numalab-worker beside this binary.
 */
double rates_start_now(void);

/*
 * Seconds a line takes to go between the first two cpus this process may
 * use and back, measured now as rates_calibrate does (a few ms): where the
 * hypervisor has put the two cpus this minute. paced (may be NULL) gets
 * the wall time of the whole measurement over its trips, as a lockstep
 * run paces them now: its rounds' gates and its waits for a cpu in. -1
 * with fewer than two cpus.
 */
double rates_round_trip_now(const struct topo *t, double *paced);

/*
 * The rates of a line two threads fight for (bounce_ns, atomic_shared_ns),
 * measured now on the first two cpus this process may use as
 * rates_calibrate does, on fewer increments (a few ms), into r; the rest
 * of r is left. It moves on a VM: one calibration of an idle 2-vCPU
 * guest read 5.0 ns a bounce, one ten minutes later 1.0.
 * 0, or -1 with fewer than two cpus.
 */
int rates_contended_now(const struct topo *t, struct rates *r);

/*
 * Makes r (kept by the caller) the rates that rates_get returns on this
 * thread, until called with NULL; other threads keep the rates set. For
 * an estimate made with some rates measured now.
 */
void rates_use_here(const struct rates *r);

/*
 * The rates of r that are still the built-in guesses (a rate a machine of
 * one cpu cannot measure: a line two cpus share), named by what they time,
 * ", " between them, into names (may be NULL); returns how many. All of
 * them where r was never measured.
 */
int rates_guessed(const struct rates *r, char *names, size_t len);

/*
 * What the rates the estimates use are, in words, for an estimate's basis:
 * "the rates measured here", "this machine's rates, not the topology's",
 * and how many of them are built-in guesses.
 */
void rates_said(char *buf, size_t len);

/*
 * The usual path: rates from the cache file when it matches this machine,
 * else calibrated and saved there (path may be NULL: then only
 * calibrated). Sets them with rates_set. For a topology that is not this
 * system's (t->thissystem 0), the same for this machine's own topology,
 * marked standin: no rate is measured on cpus this machine lacks, and
 * the cache is read, never written. A cache holding a rate that is not a
 * positive finite number is never used: it is measured again and saved
 * over. Returns 0, or -errno when the rates could not be measured or
 * saved; note (len bytes, may be NULL) gets a sentence for the user on
 * either or on a bad cache replaced, "" otherwise.
 */
int rates_init(const struct topo *t, const char *path, char *note, size_t len);

/* Where the cache lives by default: $XDG_CACHE_HOME or ~/.cache, numalab/rates.
 */
void rates_default_path(char *buf, size_t len);

#endif
