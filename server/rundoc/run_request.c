/* run_request.c - reading a request to run {"experiment", "params", ...}, as every route that takes one does */
#include "run_request.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "strbuf.h"

int schema_params_to_argv(json_t *params, struct strvec *argv, int cap,
			  struct errinfo *err)
{
	struct strbuf buf = STRBUF_INIT;
	const char *key;
	json_t *val;
	int n = 0;

	errinfo_clear(err);
	if (!params || json_is_null(params))
		return 0;
	if (!json_is_object(params))
		return errinfo_set(err, "params",
				   "'params' must be an object of name: value");
	json_object_foreach (params, key, val) {
		json_t *items = json_is_array(val) ? val : NULL;
		size_t count = items ? json_array_size(items) : 1;

		if (n >= cap) {
			errinfo_set(err, NULL, "too many parameters");
			goto fail;
		}
		if (items && count == 0) {
			errinfo_set(err, key, "'%.60s' is an empty list", key);
			goto fail;
		}
		strbuf_reset(&buf);
		/* not through a format: a request's params are read for every
		 * run posted and every document described */
		strbuf_addstr(&buf, key);
		strbuf_addch(&buf, '=');
		for (size_t i = 0; i < count; i++) {
			json_t *v = items ? json_array_get(items, i) : val;
			if (i)
				strbuf_addch(&buf, ',');
			if (json_is_string(v))
				strbuf_addstr(&buf, json_string_value(v));
			else if (json_is_integer(v))
				strbuf_addf(&buf, "%" JSON_INTEGER_FORMAT,
					    json_integer_value(v));
			else {
				errinfo_set(
					err, key, "'%.60s' must be %s", key,
					json_is_real(v)
						? "a whole number, not a fraction"
						: "a string, a whole number or a list of them");
				goto fail;
			}
		}
		/* the limit and the words the param's own parse has */
		if (param_check_length(key, buf.len - strlen(key) - 1, err))
			goto fail;
		strvec_push(argv, strbuf_str(&buf));
		if (buf.oom || argv->oom) {
			errinfo_set(err, NULL, "out of memory");
			strbuf_release(&buf);
			return -ENOMEM;
		}
		n++;
	}
	strbuf_release(&buf);
	return n;
fail:
	strbuf_release(&buf);
	return -EINVAL;
}

/* "a, b, c": every experiment's name. */
static void known_experiments(struct strbuf *sb)
{
	for (int i = 0; experiments[i]; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", experiments[i]->name);
}

static int field_allowed(const struct request_rules *rules, const char *key)
{
	for (const char *const *f = rules->fields; *f; f++)
		if (!strcmp(*f, key))
			return 1;
	return 0;
}

/* Refuses the first field of body that rules do not allow. */
static int check_fields(json_t *body, const struct request_rules *rules,
			struct run_request *rq, struct errinfo *err)
{
	struct strbuf allowed = STRBUF_INIT;
	const char *key;
	json_t *v;

	json_object_foreach (body, key, v) {
		if (field_allowed(rules, key))
			continue;
		for (const char *const *f = rules->fields; *f; f++)
			strbuf_addf(&allowed, "%s%s",
				    f == rules->fields ? "" : ", ", *f);
		errinfo_set(err, key, "unknown field '%.60s' (allowed: %s)",
			    key, strbuf_str(&allowed));
		rq->field = key;
		strbuf_release(&allowed);
		return -EINVAL;
	}
	return 0;
}

static int find_experiment(json_t *body, const struct request_rules *rules,
			   struct run_request *rq, struct errinfo *err)
{
	json_t *v = json_object_get(body, "experiment");
	struct strbuf known = STRBUF_INIT;
	const char *name;

	if (!json_is_string(v))
		return errinfo_set(err, "experiment", "%s",
				   rules->bad_experiment ? rules->bad_experiment
				   : v ? "'experiment' must be a string"
				       : "missing field 'experiment'");
	name = json_string_value(v);
	rq->exp = experiment_find(name);
	if (rq->exp)
		return 0;
	if (rules->list_known)
		known_experiments(&known);
	errinfo_set(err, "experiment", "unknown experiment '%.60s'%s%s%s", name,
		    known.len ? " (known: " : "", strbuf_str(&known),
		    known.len ? ")" : "");
	strbuf_release(&known);
	return -EINVAL;
}

/*
 * Refuses the first k of rq's "k=v" texts that its experiment does not
 * take, or that its run would not read.
 */
static int check_names(struct run_request *rq, struct errinfo *err)
{
	for (size_t i = 0; i < rq->argv.n; i++) {
		size_t n = strcspn(rq->argv.v[i], "=");
		if (!experiment_param(rq->exp, rq->argv.v[i], n))
			return errinfo_set(
				err, "params",
				"experiment '%s' has no parameter '%.*s'",
				rq->exp->name, (int)n, rq->argv.v[i]);
	}
	return experiment_check_elsewhere(rq->exp, (int)rq->argv.n, rq->argv.v,
					  err);
}

/* Every value resolved against t, into rq's pv, typed and common. */
static int parse_values(struct run_request *rq, const struct topo *t,
			struct errinfo *err)
{
	size_t size = rq->exp->params_size ? rq->exp->params_size : 1;

	/* about 250 KiB: each value is filled as it is parsed, to its n */
	rq->pv = malloc(sizeof(*rq->pv));
	/* zeroed by the parse that fills it (and unread when it fails) */
	rq->typed = malloc(size);
	if (!rq->pv || !rq->typed)
		return -ENOMEM;
	rq->pv->n = 0;
	return experiment_parse(rq->exp, t, (int)rq->argv.n, rq->argv.v, rq->pv,
				rq->typed, &rq->common, err);
}

int schema_run_request(json_t *body, const struct request_rules *rules,
		       const struct topo *t, struct run_request *rq,
		       struct errinfo *err)
{
	int rc;

	errinfo_clear(err);
	rq->field = NULL;
	if (!json_is_object(body))
		return errinfo_set(err, NULL, "%s", rules->not_object);
	rc = check_fields(body, rules, rq, err);
	if (!rc)
		rc = find_experiment(body, rules, rq, err);
	if (!rc && schema_params_to_argv(json_object_get(body, "params"),
					 &rq->argv, SCHEMA_MAX_PARAMS, err) < 0)
		rc = -EINVAL;
	if (!rc)
		rc = rules->names_only ? check_names(rq, err)
				       : parse_values(rq, t, err);
	if (rc && !rq->field && *err->field)
		rq->field = err->field;
	return rc;
}

void run_request_clear(struct run_request *rq)
{
	strvec_clear(&rq->argv);
	free(rq->pv);
	free(rq->typed);
	rq->pv = NULL;
	rq->typed = NULL;
	rq->exp = NULL;
}
