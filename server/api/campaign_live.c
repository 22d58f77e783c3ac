/* campaign_live.c - each running campaign's event log, for the page to follow as its nodes finish */
#include "campaign_live.h"
#include "events.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct live {
	char id[72];
	struct runlog *log;
	unsigned long long used; /* when it last changed: the oldest goes */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct live table[CAMPAIGN_LIVE_MAX];
static unsigned long long clock_;

static int ended(json_t *summary)
{
	const char *state =
		json_string_value(json_object_get(summary, "state"));

	return state && strcmp(state, "running");
}

/* The slot of id (or a free one, or the oldest, its log ended); under
 * lock. */
static struct live *slot(const char *id, int make)
{
	struct live *free_ = NULL, *oldest = &table[0];

	for (int i = 0; i < CAMPAIGN_LIVE_MAX; i++) {
		if (table[i].log && !strcmp(table[i].id, id))
			return &table[i];
		if (!table[i].log && !free_)
			free_ = &table[i];
		if (table[i].used < oldest->used)
			oldest = &table[i];
	}
	if (!make)
		return NULL;
	if (!free_) {
		runlog_close(oldest->log);
		runlog_unref(oldest->log);
		oldest->log = NULL;
		free_ = oldest;
	}
	snprintf(free_->id, sizeof(free_->id), "%s", id);
	return free_;
}

static void append(struct runlog *log, json_t *summary, json_t *node)
{
	json_t *ev = event_campaign(summary, node);

	if (ev)
		runlog_append(log, ev);
	json_decref(ev);
}

void campaign_live_note(const char *id, json_t *summary, json_t *node)
{
	struct live *l;

	if (!id || !summary)
		return;
	pthread_mutex_lock(&lock);
	l = slot(id, !ended(summary));
	if (l && !l->log)
		l->log = runlog_new(0);
	if (l && l->log) {
		l->used = ++clock_;
		append(l->log, summary, node);
		if (ended(summary)) {
			runlog_close(l->log);
			runlog_unref(l->log);
			l->log = NULL;
		}
	}
	pthread_mutex_unlock(&lock);
}

struct runlog *campaign_live_log(const char *id, json_t *summary)
{
	struct runlog *log = NULL;
	struct live *l;

	pthread_mutex_lock(&lock);
	l = slot(id, !ended(summary));
	if (l && l->log) {
		log = runlog_ref(l->log);
	} else if (l) {
		l->log = runlog_new(0);
		l->used = ++clock_;
		if (l->log) {
			append(l->log, summary, NULL);
			log = runlog_ref(l->log);
		}
	}
	pthread_mutex_unlock(&lock);
	if (!l) {
		/* it has ended: one event that says so, and the end */
		log = runlog_new(0);
		if (log) {
			append(log, summary, NULL);
			runlog_close(log);
		}
	}
	return log;
}

void campaign_live_clear(void)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < CAMPAIGN_LIVE_MAX; i++)
		if (table[i].log) {
			runlog_close(table[i].log);
			runlog_unref(table[i].log);
			table[i].log = NULL;
		}
	pthread_mutex_unlock(&lock);
}
