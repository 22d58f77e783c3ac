/* run_request.h - reading a request to run {"experiment", "params", ...}, as every route that takes one does */
#ifndef NUMALAB_RUN_REQUEST_H
#define NUMALAB_RUN_REQUEST_H

#include <jansson.h>

#include "errinfo.h"
#include "experiment.h"
#include "strvec.h"
#include "topo.h"

/*
 * Appends an API "params" object to argv as k=v strings for
 * experiment_parse: numbers become their integer text, arrays of
 * numbers/strings are joined with ','. Returns the count (at most cap),
 * or -EINVAL with err set (a value that is not a string, integer or array
 * of them; a non-integer number; a value longer than param_check_length
 * takes; more than cap of them) or -ENOMEM.
 */
int schema_params_to_argv(json_t *params, struct strvec *argv, int cap,
			  struct errinfo *err);
/* The most params one request may give. */
#define SCHEMA_MAX_PARAMS 64

/*
 * How one route reads a request to run {"experiment", "params", ...}: the
 * fields it allows and how it words a refusal, so that every route keeps
 * its own answers while one function reads them all.
 */
struct request_rules {
	const char *const *fields; /* allowed, NULL-terminated; named in the
				      refusal of any other */
	const char *not_object;	   /* the refusal of a body not an object */
	/* the refusal of a missing or non-string experiment; NULL: "missing
	 * field 'experiment'" or "'experiment' must be a string" */
	const char *bad_experiment;
	int list_known; /* an unknown experiment's refusal names the known */
	/* only the params' names are checked: their values are judged on
	 * the machines the run goes to (no pv, typed or common) */
	int names_only;
};

/* A request read: what it asks for, as k=v texts and typed. */
struct run_request {
	const struct experiment *exp;
	struct strvec argv;	 /* the params as "k=v", as given */
	struct param_values *pv; /* every value resolved here */
	void *typed;		 /* exp->params_size bytes */
	struct common_params common;
	const char *field; /* the refused field (err->field, or a key of the
			      body too long for it), NULL when none */
};

#define RUN_REQUEST_INIT                                                       \
	{                                                                      \
		.argv = STRVEC_INIT                                            \
	}

/*
 * Reads body under rules: the fields, the experiment, the params and
 * (unless rules->names_only) their values against t, into rq. Returns 0;
 * -EINVAL with err and rq->field set, worded as rules say; -ENOMEM.
 * rq is cleared with run_request_clear either way.
 */
int schema_run_request(json_t *body, const struct request_rules *rules,
		       const struct topo *t, struct run_request *rq,
		       struct errinfo *err);
void run_request_clear(struct run_request *rq);

#endif
