/* sink_json.h - a sink that turns kernel output into JSON events */
#ifndef NUMALAB_SINK_JSON_H
#define NUMALAB_SINK_JSON_H

#include <jansson.h>

#include "sink.h"

/* Receives each event; takes no reference (copy or incref to keep it). */
typedef void (*event_fn)(void *arg, json_t *event);

struct sink_json {
	struct sink sink;
	event_fn emit;
	void *arg;
};

void sink_json_init(struct sink_json *s, event_fn emit, void *arg);
/* Emits an event built by the caller and releases it. */
void sink_json_emit(struct sink_json *s, json_t *event);

#endif
