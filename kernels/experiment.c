/* experiment.c - params every experiment shares, and parsing a request for one */
#include "experiment.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const strategies[] = {"spread", "compact", "os", NULL};

const struct param placement_params[] = {
	{.name = "cpus",
	 .type = PARAM_CPULIST,
	 .def = "",
	 .min = 0,
	 .max = 65535,
	 .help = "run thread i on the i-th CPU of this list (e.g. 0,2-3); "
		 "empty: use the placement strategy"},
	{.name = "placement",
	 .type = PARAM_ENUM,
	 .def = "spread",
	 .choices = strategies,
	 .help = "spread: as far apart as possible (nodes, caches, cores); "
		 "compact: as close as possible; os: no pinning"},
	{0}};

const struct param common_params[] = {
	{.name = "repeat",
	 .type = PARAM_INT,
	 .def = "5",
	 .min = 1,
	 .max = 1000,
	 .unit = "rounds",
	 .help = "timed rounds per point: the point is their median"},
	{.name = "warmup",
	 .type = PARAM_INT,
	 .def = "1",
	 .min = 0,
	 .max = 100,
	 .unit = "rounds",
	 .help = "untimed rounds before the timed ones"},
	{0}};

const struct experiment *experiment_find(const char *name)
{
	for (int i = 0; experiments[i]; i++)
		if (!strcmp(experiments[i]->name, name))
			return experiments[i];
	return NULL;
}

/* Trims a PARAM_F_CPUS default ("1-4") to the CPUs the machine allows. */
static void trim_default(const struct param *p, const struct topo *t,
			 char *buf, size_t len)
{
	int32_t v[PARAM_MAX_LIST];
	char msg[PARAM_ERR_LEN];
	int n = parse_int_list(p->def, p->min, p->max, v, PARAM_MAX_LIST, msg,
			       sizeof(msg));
	int k = 0;

	snprintf(buf, len, "%s", p->def);
	if (n <= 0)
		return;
	for (int i = 0; i < n; i++)
		if (v[i] <= t->nallowed)
			v[k++] = v[i];
	if (k == 0)
		v[k++] = t->nallowed > 0 ? t->nallowed : 1;
	format_int_list(v, k, buf, len);
}

int experiment_parse(const struct experiment *exp, const struct topo *t,
		     int argc, char *const *argv, struct param_values *pv,
		     struct errinfo *err)
{
	const struct param *tables[3];
	struct param trimmed[24];
	char defs[24][64];
	int nt = 0, np = 0, rc;

	/* a copy of the table with machine-dependent defaults trimmed */
	for (const struct param *p = exp->params; p->name && np < 23; p++) {
		trimmed[np] = *p;
		if ((p->flags & PARAM_F_CPUS) && t) {
			trim_default(p, t, defs[np], sizeof(defs[np]));
			trimmed[np].def = defs[np];
		}
		np++;
	}
	memset(&trimmed[np], 0, sizeof(trimmed[np]));
	tables[nt++] = trimmed;
	if (exp->uses_placement)
		tables[nt++] = placement_params;
	tables[nt++] = common_params;
	rc = params_parse(tables, nt, argc, argv, pv, err);
	if (rc)
		return rc;
	/* point every value back at the real table row */
	for (int i = 0; i < pv->n; i++)
		for (const struct param *p = exp->params; p->name; p++)
			if (!strcmp(p->name, pv->v[i].p->name))
				pv->v[i].p = p;
	if (!t)
		goto check;
	for (int i = 0; i < pv->n; i++) {
		const struct param_value *v = &pv->v[i];
		int64_t most = 0;
		if (!(v->p->flags & PARAM_F_CPUS))
			continue;
		for (int k = 0; k < v->n; k++)
			if (v->list[k] > most)
				most = v->list[k];
		if (v->p->type == PARAM_INT)
			most = v->i;
		if (exp->uses_placement) {
			const struct param_value *cpus = params_get(pv, "cpus");
			int plan[PARAM_MAX_LIST];
			int s = place_strategy_parse(params_str(pv, "placement"));
			if (most > PARAM_MAX_LIST)
				most = PARAM_MAX_LIST;
			rc = topo_plan(t, s, cpus->list, cpus->n, (int)most, plan,
				       err->msg, sizeof(err->msg));
			if (rc) {
				snprintf(err->field, sizeof(err->field), "%s",
					 cpus->n ? "cpus" : v->p->name);
				return rc;
			}
		} else if (most > t->nallowed) {
			snprintf(err->field, sizeof(err->field), "%s",
				 v->p->name);
			snprintf(err->msg, sizeof(err->msg),
				 "'%s' asks for %lld threads, but only %d cpus are available to this process (allowed: %s)",
				 v->p->name, (long long)most, t->nallowed,
				 t->allowed_text);
			return -EINVAL;
		}
	}
check:
	if (exp->check)
		return exp->check(pv, t, err);
	return 0;
}

int experiment_plan(const struct run_ctx *ctx, int nthreads, int *cpus,
		    struct errinfo *err)
{
	const struct param_value *list = params_get(ctx->pv, "cpus");
	int s = place_strategy_parse(params_str(ctx->pv, "placement"));

	memset(err, 0, sizeof(*err));
	snprintf(err->field, sizeof(err->field), "cpus");
	return topo_plan(ctx->topo, s < 0 ? PLACE_SPREAD : s,
			 list ? list->list : NULL, list ? list->n : 0, nthreads,
			 cpus, err->msg, sizeof(err->msg));
}
