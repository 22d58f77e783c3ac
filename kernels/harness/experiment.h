/* experiment.h - what runs an experiment: parsing a request, checking a descriptor, running and describing it */
#ifndef NUMALAB_EXPERIMENT_H
#define NUMALAB_EXPERIMENT_H

#include "declares.h"
#include "descriptor.h"
#include "labels.h"
#include "params.h"
#include "rules.h"
#include "sink.h"
#include "topo.h"
#include "verdict.h"

/*
 * The row of exp's param named by the first len bytes of name (its own
 * table, placement's when it uses placement, the common one): whether exp
 * takes that param, without building its schema. NULL when it does not.
 */
const struct param *experiment_param(const struct experiment *exp,
				     const char *name, size_t len);

/*
 * The first of exp's parts whose reads (struct part .reads) name the param
 * name: the part it belongs to when a help groups params by part. NULL
 * when no part names it (every part may read it) or exp has no parts.
 */
const struct part *experiment_param_part(const struct experiment *exp,
					 const char *name);

/*
 * Whether exp takes more params than a request may hold
 * (PARAM_MAX_PER_EXP) with the common ones: 0, or -EINVAL with err set.
 */
int experiment_params_over_limit(const struct experiment *exp,
				 struct errinfo *err);

/* Params every experiment takes: cpus, placement, repeat, warmup, budget. */
extern const struct param common_params[];
extern const struct param placement_params[];

/*
 * Parses CLI/API k=v assignments for exp (its table + the common ones),
 * refuses one it would not read (experiment_check_read), then runs the
 * descriptor's check and the placement check against t.
 * pv (the text forms, as recorded and passed to the worker) is filled
 * whole (it need not be zeroed: each value is, to its element count n,
 * as it is parsed). params (exp->params_size bytes) and common
 * receive the typed values; either may be NULL when only the text forms
 * are wanted. Returns 0 or -EINVAL with err set.
 */
int experiment_parse(const struct experiment *exp, const struct topo *t,
		     int argc, char *const *argv, struct param_values *pv,
		     void *params, struct common_params *common,
		     struct errinfo *err);

/*
 * Whether a run of pv (every value, parsed) reads p: 0 for a common param
 * exp never reads (exp->unread), or one whose row's only the values do
 * not meet (a param of another mode, placement beside cpus), with why
 * (may be NULL) naming p and saying when it is read; else 1.
 */
int experiment_reads(const struct experiment *exp, const struct param *p,
		     const struct param_values *pv, struct errinfo *why);

/*
 * Refuses the first of the request's own k=v texts (argv, not the
 * defaults that fill the rest of pv) whose param a run of pv would not
 * read (experiment_reads): nothing a request gives is silently dropped.
 * experiment_parse calls it; so does what checks a request without
 * parsing it for this machine. Returns 0 or -EINVAL with err set.
 */
int experiment_check_read(const struct experiment *exp, int argc,
			  char *const *argv, const struct param_values *pv,
			  struct errinfo *err);

/*
 * experiment_check_read for a request whose values are judged on the
 * machines it goes to (a campaign's): the k=v texts parsed as a recorded
 * run's (nothing of this machine asked), then each checked to be read.
 * A text that does not parse is left for those machines to refuse.
 * Returns 0, -EINVAL with err set, or -ENOMEM.
 */
int experiment_check_elsewhere(const struct experiment *exp, int argc,
			       char *const *argv, struct errinfo *err);

/*
 * Parses the params of a run already made (the normalised k=v texts it
 * recorded) into the typed struct, without asking anything of this
 * machine: no trimmed defaults, no placement plan and no check hook, so a
 * run made elsewhere reads back the same. For code that describes a stored
 * run. Returns 0 or -EINVAL with err set.
 */
int experiment_parse_recorded(const struct experiment *exp, int argc,
			      char *const *argv, struct param_values *pv,
			      void *params, struct common_params *common,
			      struct errinfo *err);

/*
 * Checks a descriptor against itself: table size, offsets inside
 * params_size, choice lists, defaults that parse, chart ids unique and
 * every reference naming a declared chart. Returns 0 or -EINVAL with err
 * naming the first problem.
 */
int experiment_validate(const struct experiment *exp, struct errinfo *err);

/*
 * Runs exp with ctx, its sink checking every chart id and summary key
 * against the descriptor; when the run ends (normally or cancelled) its
 * describe hook judges what was recorded and the verdict (notes, then
 * the headline) goes out through the same sink. Returns what the run returns,
 * or -EPROTO with err set when the run emitted an id its descriptor does not
 * declare (the results are then not to be trusted to draw or import).
 */
int experiment_run(struct run_ctx *ctx, struct errinfo *err);

/*
 * The run's estimate (exp->estimate) plus what starting a worker costs
 * here. Returns 0, or -ENOENT when the experiment has no estimate (then
 * *seconds and *bytes are 0).
 */
int experiment_estimate(const struct experiment *exp, const void *params,
			const struct common_params *common,
			const struct topo *t, double *seconds, uint64_t *bytes);

/*
 * Describes a run with exp's rules: r's exp, params and common must be
 * set (experiment_parse_recorded for a stored run). Empties v first,
 * checks the rulebook (rules_describe) and hands its findings to the
 * hook (run_result.rules), then marks the .compared keys: disowned with
 * the failed rule's sentence, or "at least" for a partial overlap. A
 * note said twice is kept once.
 */
void experiment_describe(const struct run_result *r, struct verdict *v);

/*
 * For a precheck whose comparison needs threads contending: plans
 * nthreads as the request would and notes when every thread lands on one
 * cpu ("cannot": "the placement puts every thread on cpu N: " + same_cpu)
 * or two land on SMT siblings ("warn": "... share a core): " + siblings).
 * Says nothing when the plan fails (the parse reports that).
 */
void experiment_precheck_placement(const struct topo *t,
				   const struct common_params *common,
				   int nthreads, const char *same_cpu,
				   const char *siblings, struct verdict *v);

/*
 * What exp's rulebook (rules_precheck) and then its precheck hook say
 * about a parsed request on machine t: empties v first; a note said
 * twice is kept once.
 */
void experiment_precheck(const struct experiment *exp, const void *params,
			 const struct common_params *common,
			 const struct topo *t, struct verdict *v);

/*
 * The CPU for each of nthreads threads, from the request's cpus and
 * placement params. Returns 0 or -EINVAL with err set.
 */
int experiment_plan(const struct run_ctx *ctx, int nthreads, int *cpus,
		    struct errinfo *err);

/*
 * Runs ctx->exp's parts that ctx->params select (struct part .wanted,
 * struct experiment .parts_param) in order, each with state (what the
 * experiment's run() prepared for them), until one fails (a cancelled one
 * returns -ECANCELED). Returns 0, or what the failing part returned.
 */
int experiment_run_parts(struct run_ctx *ctx, const void *state);

/*
 * Asks each of r->exp's parts that r->params select, in order, what it
 * showed: its notes, and the headline of the first part that has one,
 * into head (len bytes).
 */
void experiment_describe_parts(const struct run_result *r, struct verdict *v,
			       char *head, size_t len);

/*
 * The estimate of a run of params as the sum of the estimates of exp's
 * parts that params select: an experiment's estimate hook when its parts
 * hold the whole time model.
 */
void experiment_estimate_parts(const struct experiment *exp, const void *params,
			       const struct common_params *common,
			       const struct topo *t, double *seconds,
			       uint64_t *bytes);

#endif
