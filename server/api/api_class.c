/* api_class.c - the classroom's question, the class's guesses and their reveal, over HTTP */
#include "api_class.h"
#include "api_body.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "events.h"
#include "experiment.h"
#include "guesses.h"
#include "join_code.h"
#include "registry.h"
#include "runlog.h"
#include "whoami.h"

#define TOUCHED_MAX 4096 /* runs given guesses in one server's life */
/* a new count of answers goes to the phones' stream at most this often
 * (the question, the reveal and the run go at once) */
#define FEED_EVERY_MS 1000

struct guess {
	char session[HTTP_SESSION_LEN];
	unsigned char client[16]; /* http_client_key's, net */
	char name[HTTP_NAME_LEN];
	double value;
};

struct api_class {
	pthread_mutex_t mu;
	struct store *store;
	int64_t serial; /* of the question; 0: none opened yet */
	const struct experiment *exp;
	const struct lesson *lesson;
	int revealed;
	int64_t run; /* 0: none named yet */
	int has_teacher;
	double teacher;
	size_t n;
	struct guess g[GUESSES_MAX];
	/* runs guessed on: only grows, read without mu (api_class_touched) */
	size_t ntouched;
	int64_t touched[TOUCHED_MAX];
	/* the room's state, as the phones follow it (api_class_feed) */
	struct runlog *feed;
	int64_t fed_serial, fed_run;
	int fed_revealed;
	size_t fed_answered;
	struct timespec fed_at;
	int pending, stopping;
	pthread_cond_t cv;
	pthread_t feeder;
	int feeder_started;
};

/* The room's public state to the feed; c->mu held. */
static void feed_now(struct api_class *c)
{
	json_t *ev = event_class(c->serial, (int64_t)c->n, c->revealed, c->run);

	if (ev)
		runlog_append(c->feed, ev);
	json_decref(ev);
	c->fed_serial = c->serial;
	c->fed_run = c->run;
	c->fed_revealed = c->revealed;
	c->fed_answered = c->n;
	c->pending = 0;
	clock_gettime(CLOCK_MONOTONIC, &c->fed_at);
}

/* After any change; c->mu held. A count of answers waits its turn. */
static void feed_locked(struct api_class *c)
{
	struct timespec now;
	double since;

	if (c->serial != c->fed_serial || c->run != c->fed_run ||
	    c->revealed != c->fed_revealed) {
		feed_now(c);
		return;
	}
	if (c->n == c->fed_answered)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	since = (double)(now.tv_sec - c->fed_at.tv_sec) * 1e3 +
		(double)(now.tv_nsec - c->fed_at.tv_nsec) / 1e6;
	if (since >= FEED_EVERY_MS) {
		feed_now(c);
	} else if (!c->pending) {
		c->pending = 1;
		pthread_cond_signal(&c->cv);
	}
}

/* Sends a waiting count once its turn comes. */
static void *feeder(void *arg)
{
	struct api_class *c = arg;

	pthread_mutex_lock(&c->mu);
	while (!c->stopping) {
		if (!c->pending) {
			pthread_cond_wait(&c->cv, &c->mu);
			continue;
		}
		struct timespec due = c->fed_at;
		due.tv_nsec += (long)(FEED_EVERY_MS % 1000) * 1000000L;
		due.tv_sec += FEED_EVERY_MS / 1000 + due.tv_nsec / 1000000000L;
		due.tv_nsec %= 1000000000L;
		if (pthread_cond_timedwait(&c->cv, &c->mu, &due) == ETIMEDOUT &&
		    c->pending)
			feed_now(c);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

struct api_class *api_class_new(struct store *st)
{
	struct api_class *c = calloc(1, sizeof(*c));
	pthread_condattr_t ca;

	if (!c)
		return NULL;
	pthread_mutex_init(&c->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cv, &ca);
	pthread_condattr_destroy(&ca);
	c->store = st;
	c->feed = runlog_new(0);
	if (!c->feed) {
		api_class_free(c);
		return NULL;
	}
	feed_now(c); /* a phone that connects gets the state at once */
	c->feeder_started = !pthread_create(&c->feeder, NULL, feeder, c);
	return c;
}

void api_class_free(struct api_class *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	c->stopping = 1;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
	if (c->feeder_started)
		pthread_join(c->feeder, NULL);
	if (c->feed) {
		runlog_close(c->feed);
		runlog_unref(c->feed);
	}
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

struct runlog *api_class_feed(struct api_class *c)
{
	return runlog_ref_live(c->feed);
}

int api_class_touched(struct api_class *c, int64_t id)
{
	/* every GET of a run asks: without the class's lock (the list only
	 * grows, each id written before the count that takes it in) */
	size_t n = __atomic_load_n(&c->ntouched, __ATOMIC_ACQUIRE);

	for (size_t i = 0; i < n; i++)
		if (c->touched[i] == id)
			return 1;
	return 0;
}

/*
 * Who asks: the role sign-in gave (HTTP_ROLE_TEACHER for every request on a
 * server with no token). *session: the sign-in's cookie, "" for a bearer
 * token; *name: the name given at sign-in, "" when none.
 */
static int role_of(struct http_request *rq, const char **session,
		   const char **name)
{
	*session = rq->session;
	*name = rq->name;
	return rq->role;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The state every page reads; c->mu held. */
static json_t *state_locked(struct api_class *c, const char *session)
{
	json_t *q = json_null(), *vals = json_array(), *names = json_array();
	json_t *mine = json_null(), *median = json_null();
	double sorted[GUESSES_MAX];

	if (c->lesson)
		q = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s}", "serial",
			      (json_int_t)c->serial, "experiment", c->exp->name,
			      "lesson", c->lesson->id, "title",
			      c->lesson->title, "question", c->lesson->question,
			      "unit", c->lesson->unit ? c->lesson->unit : "");
	for (size_t i = 0; i < c->n; i++) {
		sorted[i] = c->g[i].value;
		/* who guessed is shown with the values, at the reveal */
		if (c->g[i].name[0] && c->revealed)
			json_array_append_new(names, json_string(c->g[i].name));
		if (session && *session && !strcmp(session, c->g[i].session))
			mine = json_real(c->g[i].value);
	}
	if (c->revealed && c->n) {
		qsort(sorted, c->n, sizeof(sorted[0]), by_value);
		for (size_t i = 0; i < c->n; i++)
			json_array_append_new(vals, json_real(sorted[i]));
		median = json_real(
			c->n % 2 ? sorted[c->n / 2]
				 : (sorted[c->n / 2 - 1] + sorted[c->n / 2]) /
					   2);
	}
	return json_pack(
		"{s:o, s:I, s:i, s:b, s:o, s:o, s:o, s:o, s:o, s:o}",
		"question", q ? q : json_null(), "answered", (json_int_t)c->n,
		"max", GUESSES_MAX, "revealed", c->revealed, "guesses", vals,
		"median", median, "names", names, "mine", mine, "run",
		c->run ? json_integer(c->run) : json_null(), "teacher_guess",
		c->has_teacher ? json_real(c->teacher) : json_null());
}

/* The block kept with the run; c->mu held. */
static json_t *block_locked(struct api_class *c)
{
	json_t *gs = json_array();

	for (size_t i = 0; i < c->n; i++)
		json_array_append_new(
			gs,
			json_pack("{s:o, s:f}", "name",
				  c->g[i].name[0] ? json_string(c->g[i].name)
						  : json_null(),
				  "value", c->g[i].value));
	return json_pack("{s:s, s:s, s:s, s:b, s:o, s:o}", "lesson",
			 c->lesson->id, "question", c->lesson->question, "unit",
			 c->lesson->unit ? c->lesson->unit : "", "revealed",
			 c->revealed, "teacher_guess",
			 c->has_teacher ? json_real(c->teacher) : json_null(),
			 "guesses", gs);
}

/* Writes the guesses to the run they answer, if one is named; c->mu held.
 * 0, or the 5xx queued in *ret. */
static int keep_locked(struct api_class *c, struct http_request *rq,
		       enum MHD_Result *ret)
{
	struct errinfo err;
	json_t *b;
	int rc;

	if (!c->run)
		return 0;
	b = block_locked(c);
	rc = b ? guesses_put(c->store, c->run, b, &err) : -ENOMEM;
	json_decref(b);
	if (!rc)
		return 0;
	*ret = http_error(rq,
			  rc == -ESTALE ? MHD_HTTP_SERVICE_UNAVAILABLE
					: MHD_HTTP_INTERNAL_SERVER_ERROR,
			  NULL, "%s", b ? err.msg : "out of memory");
	return rc;
}

static enum MHD_Result
answer_locked(struct api_class *c, struct http_request *rq, const char *session)
{
	json_t *s = state_locked(c, session), *join;

	feed_locked(c);
	pthread_mutex_unlock(&c->mu);
	/* the teacher's answer carries the join code now (a new question
	 * made a new one): the projector shows it at once */
	join = s ? http_join_info(rq) : NULL;
	if (join)
		json_object_set_new(s, "join", join);
	return s ? http_json(rq, MHD_HTTP_OK, s) : MHD_NO;
}

static enum MHD_Result need_teacher(struct http_request *rq)
{
	return http_error(rq, MHD_HTTP_FORBIDDEN, NULL,
			  "only the teacher may do this (sign in as the "
			  "teacher or send the server's token)");
}

enum MHD_Result api_class_get(struct http_request *rq, struct api_class *c)
{
	const char *session, *name;
	json_t *s;

	/* the teacher's projector shows who joined: the lobby */
	if (role_of(rq, &session, &name) < HTTP_ROLE_TEACHER) {
		pthread_mutex_lock(&c->mu);
		return answer_locked(c, rq, session);
	}
	pthread_mutex_lock(&c->mu);
	s = state_locked(c, session);
	pthread_mutex_unlock(&c->mu);
	if (s) {
		json_t *join = http_join_info(rq);
		json_object_set_new(s, "lobby", http_lobby(rq));
		/* the code on the projector: it changes with each question and
		 * after too many wrong codes (auth.c) */
		if (join)
			json_object_set_new(s, "join", join);
	}
	return s ? http_json(rq, MHD_HTTP_OK, s) : MHD_NO;
}

enum MHD_Result api_class_open(struct http_request *rq, struct api_class *c)
{
	const char *session, *name, *en = NULL, *ln = NULL;
	static const struct api_field question_fields[] = {
		{"experiment", API_STRING, API_REQUIRED,
		 "an experiment's name"},
		{"lesson", API_STRING, API_REQUIRED, "a lesson's id"},
		{NULL, 0, 0, NULL}};
	const struct experiment *e;
	const struct lesson *l;
	struct errinfo qerr = {.field = ""};
	enum MHD_Result ret;
	json_error_t jerr;
	json_t *body;

	if (role_of(rq, &session, &name) < HTTP_ROLE_TEACHER)
		return need_teacher(rq);
	body = http_body_json(rq, &ret);
	if (!body)
		return ret;
	if (api_body_check(body, question_fields, &qerr) ||
	    json_unpack_ex(body, &jerr, 0, "{s:s, s:s}", "experiment", &en,
			   "lesson", &ln)) {
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, qerr.field,
				 "%s (send {\"experiment\": name, "
				 "\"lesson\": id})",
				 qerr.msg);
		json_decref(body);
		return ret;
	}
	e = experiment_find(en);
	for (l = e ? e->lessons : NULL; l && l->id && strcmp(l->id, ln); l++)
		;
	if (!e)
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, "experiment",
				 "unknown experiment '%.64s'", en);
	else if (!l || !l->id)
		ret = http_error(rq, MHD_HTTP_BAD_REQUEST, "lesson",
				 "unknown lesson '%.64s' of '%s'", ln, e->name);
	json_decref(body);
	if (!e || !l || !l->id)
		return ret;
	/* a new question, a new join code: one from before is refused */
	http_join_rotate(rq);
	pthread_mutex_lock(&c->mu);
	c->serial++;
	c->exp = e;
	c->lesson = l;
	c->revealed = 0;
	c->run = 0;
	c->has_teacher = 0;
	c->n = 0;
	return answer_locked(c, rq, session);
}

static const struct api_field guess_fields[] = {
	{"value", API_NUMBER, API_REQUIRED, "a number"}, {NULL, 0, 0, NULL}};

enum MHD_Result api_class_guess(struct http_request *rq, struct api_class *c)
{
	const char *session, *name;
	struct errinfo err = {.field = ""};
	enum MHD_Result ret;
	json_error_t jerr;
	json_t *body, *v = NULL;
	double value;
	size_t i;

	if (role_of(rq, &session, &name) < HTTP_ROLE_CLASS || !*session)
		return http_error(rq, MHD_HTTP_FORBIDDEN, NULL,
				  "a guess needs a class session: open the "
				  "class link that numalab serve --class-token "
				  "prints (a bearer token, or a server with no "
				  "token, has no session to keep a guess by)");
	/* the class's guesses are the students'; the teacher's own stands
	 * apart, sent with the run that answers it */
	if (rq->role == HTTP_ROLE_TEACHER)
		return http_error(rq, MHD_HTTP_FORBIDDEN, NULL,
				  "the class's guesses are the students': the "
				  "teacher's guess goes with the run, as "
				  "POST /api/class/run {\"teacher_guess\"}");
	body = http_body_json(rq, &ret);
	if (!body)
		return ret;
	if (api_body_check(body, guess_fields, &err) ||
	    json_unpack_ex(body, &jerr, 0, "{s:o}", "value", &v)) {
		json_decref(body);
		return http_error(rq, MHD_HTTP_BAD_REQUEST, err.field,
				  "%s (a guess is {\"value\": a number})",
				  err.msg);
	}
	value = json_number_value(v);
	json_decref(body);
	pthread_mutex_lock(&c->mu);
	if (!c->lesson) {
		pthread_mutex_unlock(&c->mu);
		return http_error(rq, MHD_HTTP_CONFLICT, NULL,
				  "no question is open: wait for the teacher");
	}
	if (!isfinite(value) || value <= 0 || value >= GUESS_VALUE_MAX) {
		const char *u = c->lesson->unit ? c->lesson->unit : "";
		pthread_mutex_unlock(&c->mu);
		return http_error(rq, MHD_HTTP_BAD_REQUEST, "value",
				  "'value' must be a number in the lesson's "
				  "unit '%s', above 0 and below 1000000000 "
				  "(got %g)",
				  u, value);
	}
	if (c->revealed || c->run) {
		pthread_mutex_unlock(&c->mu);
		return http_error(rq, MHD_HTTP_CONFLICT, NULL,
				  c->revealed ? "the guesses are revealed: no "
						"more are taken for this "
						"question"
					      : "the teacher has run the "
						"experiment: guesses are "
						"closed for this question");
	}
	unsigned char client[16];
	size_t theirs = 0;
	http_client_key(rq, client, 1);
	for (size_t k = 0; k < c->n; k++)
		theirs += !memcmp(c->g[k].client, client, 16);
	for (i = 0; i < c->n && strcmp(c->g[i].session, session); i++)
		;
	/* guesses one client (an address, an IPv6 /64) may give one
	 * question: one a session it may hold (--max-client-sessions), so a
	 * few students sharing an address guess and no address fills it */
	if (i == c->n && theirs >= (size_t)http_client_sessions_max(rq)) {
		pthread_mutex_unlock(&c->mu);
		return http_error(rq, MHD_HTTP_CONFLICT, NULL,
				  "this address has given %d guesses to this "
				  "question, the most one address may (as many "
				  "as --max-client-sessions; a student may "
				  "still change theirs)",
				  http_client_sessions_max(rq));
	}
	if (i == c->n && c->n == GUESSES_MAX) {
		pthread_mutex_unlock(&c->mu);
		return http_error(rq, MHD_HTTP_CONFLICT, NULL,
				  "this question has %d guesses, the most it "
				  "keeps",
				  GUESSES_MAX);
	}
	if (i == c->n)
		c->n++;
	snprintf(c->g[i].session, sizeof(c->g[i].session), "%s", session);
	memcpy(c->g[i].client, client, 16);
	snprintf(c->g[i].name, sizeof(c->g[i].name), "%s", name);
	c->g[i].value = value;
	if (keep_locked(c, rq, &ret)) {
		pthread_mutex_unlock(&c->mu);
		return ret;
	}
	return answer_locked(c, rq, session);
}

enum MHD_Result api_class_reveal(struct http_request *rq, struct api_class *c)
{
	const char *session, *name;
	enum MHD_Result ret;

	if (role_of(rq, &session, &name) < HTTP_ROLE_TEACHER)
		return need_teacher(rq);
	if (http_body_none(rq, &ret))
		return ret;
	pthread_mutex_lock(&c->mu);
	if (!c->lesson) {
		pthread_mutex_unlock(&c->mu);
		return http_error(rq, MHD_HTTP_CONFLICT, NULL,
				  "no question is open: open one first");
	}
	c->revealed = 1;
	if (keep_locked(c, rq, &ret)) {
		pthread_mutex_unlock(&c->mu);
		return ret;
	}
	return answer_locked(c, rq, session);
}

enum MHD_Result api_class_run(struct http_request *rq, struct api_class *c)
{
	const char *session, *name, *exp;
	json_int_t id = 0;
	json_t *body, *tg = NULL, *row;
	enum MHD_Result ret;
	json_error_t jerr;
	int same;

	if (role_of(rq, &session, &name) < HTTP_ROLE_TEACHER)
		return need_teacher(rq);
	static const struct api_field run_fields[] = {
		{"run", API_WHOLE, API_REQUIRED,
		 "a run id, a whole number from 1"},
		{"teacher_guess", API_NUMBER, API_NULLABLE, "a number or null"},
		{NULL, 0, 0, NULL}};
	struct errinfo err = {.field = ""};

	body = http_body_json(rq, &ret);
	if (!body)
		return ret;
	if (api_body_check(body, run_fields, &err) ||
	    json_unpack_ex(body, &jerr, 0, "{s:I, s?o}", "run", &id,
			   "teacher_guess", &tg) ||
	    (id < 1 && errinfo_set(&err, "run",
				   "'run' must be a run id, a whole number "
				   "from 1 (got %lld)",
				   (long long)id))) {
		json_decref(body);
		return http_error(rq, MHD_HTTP_BAD_REQUEST, err.field, "%s",
				  err.msg);
	}
	double t = tg && json_is_number(tg) ? json_number_value(tg) : 0;
	int has_t = tg && json_is_number(tg);
	json_decref(body);
	if (has_t && (!isfinite(t) || t <= 0 || t >= GUESS_VALUE_MAX))
		return http_error(rq, MHD_HTTP_BAD_REQUEST, "teacher_guess",
				  "'teacher_guess' must be above 0 and below "
				  "1000000000 (got %g)",
				  t);
	row = store_get_run(c->store, id);
	if (!row)
		return http_error(rq, MHD_HTTP_NOT_FOUND, "run",
				  "unknown run id '%" PRId64 "'", (int64_t)id);
	exp = json_string_value(json_object_get(row, "experiment"));
	pthread_mutex_lock(&c->mu);
	same = c->lesson && exp && !strcmp(exp, c->exp->name);
	json_decref(row);
	if (!same) {
		pthread_mutex_unlock(&c->mu);
		return http_error(
			rq, MHD_HTTP_CONFLICT, "run",
			c->lesson ? "run %" PRId64 " is not of the question's "
				    "experiment"
				  : "no question is open (run %" PRId64 ")",
			(int64_t)id);
	}
	size_t i;
	for (i = 0; i < c->ntouched && c->touched[i] != id; i++)
		;
	if (i == c->ntouched && i == TOUCHED_MAX) {
		pthread_mutex_unlock(&c->mu);
		return http_error(rq, MHD_HTTP_CONFLICT, "run",
				  "this server has kept guesses for %d runs, "
				  "the most it can: restart it",
				  TOUCHED_MAX);
	}
	if (i == c->ntouched) {
		c->touched[i] = id;
		__atomic_store_n(&c->ntouched, i + 1, __ATOMIC_RELEASE);
	}
	c->run = id;
	c->has_teacher = has_t;
	c->teacher = t;
	if (keep_locked(c, rq, &ret)) {
		pthread_mutex_unlock(&c->mu);
		return ret;
	}
	return answer_locked(c, rq, session);
}
