/* fleet_sink.c - a campaign's changes delivered as they happen, each run kept on disk and sent again until it is taken */
#include "fleet_sink.h"
#include "clock.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jsonlimit.h"
#include "stdout_close.h"
#include "strbuf.h"

struct item {
	struct item *next;
	int node;     /* -1: the campaign's record */
	json_t *body; /* the record, or the node's {state, reason, job_id} */
	int with_run;
};

struct fleet_sink {
	struct fleet_campaign *c;
	struct fleet_conn *k;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t more; /* an item came, or quit */
	pthread_cond_t done; /* an item went */
	struct item *head, *tail;
	int pending, quit, started;
	int64_t *run_id; /* by node, once taken */
	char **refused;	 /* by node: why its run was refused */
	char why[512];	 /* why the last try did not deliver */
	int away;	 /* the last try could not reach the server */
};

static struct timespec after_s(double s)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (time_t)s;
	ts.tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

static char *slurp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	size_t k;
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	while ((k = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, k);
	fclose(f);
	return strbuf_detach(&sb);
}

/* The node's run, from its file, into body ("run": null when there is
 * none to read). */
static void add_run(struct fleet_sink *s, struct fleet_node *n, json_t *body)
{
	char *path = fleet_node_file(s->c, n, "json");
	char *text = path ? slurp(path) : NULL;
	json_t *doc = text ? jsonlimit_loads(text, 0, NULL, NULL) : NULL;

	json_object_set_new(body, "run",
			    json_is_object(doc) ? doc : json_null());
	if (doc && !json_is_object(doc))
		json_decref(doc);
	free(text);
	free(path);
}

static void write_ack(struct fleet_sink *s, struct fleet_node *n, int64_t id)
{
	char *path = fleet_node_file(s->c, n, "ack");
	FILE *f = path ? fopen(path, "w") : NULL;

	if (f) {
		fprintf(f, "%lld\n", (long long)id);
		fclose(f);
	}
	free(path);
}

/* One try of the head item, outside the lock: 0, 1 or -1 (fleet_conn). */
static int deliver(struct fleet_sink *s, struct item *it, int64_t *run_id,
		   int *cancel, struct errinfo *err)
{
	struct fleet_node *n;
	int rc;

	*run_id = 0;
	*cancel = 0;
	if (it->node < 0)
		return fleet_conn_record(s->k, it->body, err);
	n = &s->c->node[it->node];
	if (it->with_run && !json_object_get(it->body, "run"))
		add_run(s, n, it->body);
	rc = fleet_conn_node(s->k, s->c->id, n->name, it->body, run_id, cancel,
			     err);
	/* a run too big or broken for the server: its state still goes */
	if (rc < 0 && json_is_object(json_object_get(it->body, "run")))
		it->with_run = -1;
	return rc;
}

static void stop_campaign(struct fleet_sink *s)
{
	__atomic_store_n(&s->c->stopped_by, "a cancel asked through the server",
			 __ATOMIC_RELEASE);
	if (!*s->c->stop)
		*s->c->stop = 1;
}

/* The item at the head went (taken or refused): apply what it brought. */
static void went(struct fleet_sink *s, struct item *it, int rc, int64_t run_id,
		 const char *why, const char *run_refused)
{
	s->head = it->next;
	if (!s->head)
		s->tail = NULL;
	s->pending--;
	if (it->node >= 0 && !rc && run_id) {
		s->run_id[it->node] = run_id;
		write_ack(s, &s->c->node[it->node], run_id);
	}
	if (it->node >= 0 && (rc < 0 || *run_refused) && !s->refused[it->node])
		s->refused[it->node] = strdup(*run_refused ? run_refused : why);
	if (it->node < 0 && rc < 0)
		fprintf(stderr,
			"numalab fleet: the campaign's record was "
			"refused: %s\n",
			why);
	json_decref(it->body);
	free(it);
	pthread_cond_broadcast(&s->done);
}

static void *run(void *arg)
{
	struct fleet_sink *s = arg;
	double backoff = 0.5, idle_since = clock_now(), said = 0;
	char run_why[512];
	struct errinfo err;

	pthread_mutex_lock(&s->mu);
	while (!s->quit || s->head) {
		struct item *it = s->head;
		int64_t run_id;
		int cancel, rc;
		if (!it) {
			struct timespec ts = after_s(2.0);
			pthread_cond_timedwait(&s->more, &s->mu, &ts);
			if (!s->head && !s->quit &&
			    clock_now() - idle_since >= 2) {
				pthread_mutex_unlock(&s->mu);
				if (fleet_conn_cancelled(s->k, s->c->id))
					stop_campaign(s);
				pthread_mutex_lock(&s->mu);
				idle_since = clock_now();
			}
			continue;
		}
		pthread_mutex_unlock(&s->mu);
		err.msg[0] = run_why[0] = '\0';
		rc = deliver(s, it, &run_id, &cancel, &err);
		if (rc < 0 && it->with_run < 0) {
			/* the state without the run, and why the run is not */
			snprintf(run_why, sizeof(run_why), "%s", err.msg);
			json_object_del(it->body, "run");
			json_object_set_new(it->body, "state",
					    json_string("failed"));
			json_object_set_new(
				it->body, "reason",
				json_sprintf("its run was not imported: %s",
					     run_why));
			it->with_run = 0;
			rc = deliver(s, it, &run_id, &cancel, &err);
		}
		if (cancel)
			stop_campaign(s);
		pthread_mutex_lock(&s->mu);
		if (rc <= 0) {
			went(s, it, rc, run_id, err.msg, run_why);
			backoff = 0.5;
			s->away = 0;
			idle_since = clock_now();
			continue;
		}
		/* not now: said once a while, tried again later */
		snprintf(s->why, sizeof(s->why), "%s", err.msg);
		s->away = 1;
		if (clock_now() - said > 30) {
			said = clock_now();
			printf("[delivery] not delivered now (%s): trying again "
			       "in %.1f s, up to every %d s; each node's run is "
			       "kept in %s\n",
			       err.msg, backoff, FLEET_SINK_BACKOFF_MAX_S,
			       s->c->dir);
			stdout_flush(stdout);
		}
		struct timespec ts = after_s(backoff);
		pthread_cond_timedwait(&s->more, &s->mu, &ts);
		if (s->quit > 1)
			break;
		backoff = backoff * 2 > FLEET_SINK_BACKOFF_MAX_S
				  ? FLEET_SINK_BACKOFF_MAX_S
				  : backoff * 2;
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

struct fleet_sink *fleet_sink_new(struct fleet_campaign *c,
				  struct fleet_conn *k)
{
	struct fleet_sink *s = calloc(1, sizeof(*s));
	pthread_condattr_t ca;

	if (!s)
		return NULL;
	s->c = c;
	s->k = k;
	pthread_mutex_init(&s->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->more, &ca);
	pthread_cond_init(&s->done, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&s->thread, NULL, run, s)) {
		free(s);
		return NULL;
	}
	s->started = 1;
	return s;
}

/* The node arrays, once the nodes are known (the record before them has
 * none). */
static int grow(struct fleet_sink *s)
{
	if (s->run_id || !s->c->n)
		return 0;
	s->run_id = calloc((size_t)s->c->n, sizeof(*s->run_id));
	s->refused = calloc((size_t)s->c->n, sizeof(*s->refused));
	return s->run_id && s->refused ? 0 : -ENOMEM;
}

static void push(struct fleet_sink *s, int node, json_t *body, int with_run)
{
	struct item *it = calloc(1, sizeof(*it));

	if (!it || !body) {
		free(it);
		json_decref(body);
		return;
	}
	it->node = node;
	it->body = body;
	it->with_run = with_run;
	pthread_mutex_lock(&s->mu);
	if (grow(s)) {
		pthread_mutex_unlock(&s->mu);
		json_decref(body);
		free(it);
		return;
	}
	if (s->tail)
		s->tail->next = it;
	else
		s->head = it;
	s->tail = it;
	s->pending++;
	pthread_cond_signal(&s->more);
	pthread_mutex_unlock(&s->mu);
}

/* Sends c's record as it is now, after what is queued. */
static void fleet_sink_record(struct fleet_sink *s)
{
	if (s)
		push(s, -1, fleet_campaign_json(s->c), 0);
}

int fleet_sink_begin(struct fleet_sink *s, struct errinfo *err)
{
	struct errinfo e = {0};
	json_t *rec = fleet_campaign_json(s->c);
	int rc = rec ? fleet_conn_record(s->k, rec, &e) : -1;

	json_decref(rec);
	if (rc < 0)
		return errinfo_set(err, "server",
				   "cannot record the campaign: %s",
				   *e.msg ? e.msg : "out of memory"),
		       -1;
	if (rc > 0) {
		printf("[delivery] the campaign cannot be recorded now (%s): it "
		       "runs all the same, each node's run kept in %s and "
		       "delivered when the server is back\n",
		       e.msg, s->c->dir);
		stdout_flush(stdout);
		fleet_sink_record(s);
	}
	return rc;
}

void fleet_sink_node(struct fleet_sink *s, struct fleet_node *n, int with_run)
{
	if (!s)
		return;
	push(s, (int)(n - s->c->node),
	     json_pack("{s:s, s:s?, s:s?}", "state",
		       fleet_state_names[n->state], "reason",
		       n->state >= FLEET_FAILED && *n->reason ? n->reason
							      : NULL,
		       "job_id", *n->job_id ? n->job_id : NULL),
	     with_run);
}

/* Waits until nothing is queued, the deadline, or a stop asked for while
 * it waits (Ctrl-C, SIGTERM: what is left stays on disk for fleet
 * deliver); under the lock. */
static void drain(struct fleet_sink *s, double deadline, int stops)
{
	while (s->pending && clock_now() < deadline && *s->c->stop <= stops) {
		struct timespec ts = after_s(0.5);
		pthread_cond_timedwait(&s->done, &s->mu, &ts);
	}
}

int fleet_sink_finish(struct fleet_sink *s, int wait_s)
{
	double deadline = clock_now() + wait_s;
	int left, stops = *s->c->stop;

	pthread_mutex_lock(&s->mu);
	drain(s, deadline, stops);
	grow(s);
	for (int i = 0; s->run_id && i < s->c->n; i++) {
		struct fleet_node *n = &s->c->node[i];
		if (s->run_id[i])
			n->run_id = s->run_id[i];
		if (s->refused[i] && n->state == FLEET_DONE) {
			n->state = FLEET_FAILED;
			snprintf(n->reason, sizeof(n->reason),
				 "its run was not imported: %s", s->refused[i]);
		}
	}
	pthread_mutex_unlock(&s->mu);
	fleet_sink_record(s);
	pthread_mutex_lock(&s->mu);
	drain(s, deadline, stops);
	left = s->pending;
	s->quit = left ? 2 : 1;
	pthread_cond_broadcast(&s->more);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	s->started = 0;
	return left;
}

void fleet_sink_free(struct fleet_sink *s)
{
	if (!s)
		return;
	if (s->started) {
		pthread_mutex_lock(&s->mu);
		s->quit = 2;
		pthread_cond_broadcast(&s->more);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->thread, NULL);
	}
	while (s->head) {
		struct item *it = s->head;
		s->head = it->next;
		json_decref(it->body);
		free(it);
	}
	for (int i = 0; s->refused && i < s->c->n; i++)
		free(s->refused[i]);
	free(s->refused);
	free(s->run_id);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->more);
	pthread_cond_destroy(&s->done);
	free(s);
}
