/* api_args.h - the routes' numbers: whole numbers, a run's {id}, a page's limit and offset */
#ifndef NUMALAB_API_ARGS_H
#define NUMALAB_API_ARGS_H

#include <stdint.h>

#include "http.h"

/* The largest offset, or seq an event stream resumes after, the API takes
 * (room above it for the numbers a server adds to a seq) */
#define API_SEQ_MAX (INT64_MAX / 2)

/* Strict decimal in [min, max]; 0 or -EINVAL. */
int api_parse_num(const char *s, int64_t min, int64_t max, int64_t *out);
/* The {id} of the route; on failure the 400 is queued in *ret. */
int api_run_id(struct http_request *rq, int64_t *id, enum MHD_Result *ret);
/* 404 for a run that is not there (errno ENOENT), else 500: the answer to a
 * run id whose run could not be read. */
enum MHD_Result api_run_unread(struct http_request *rq, int64_t id);
/*
 * The ?limit= (1 to max) and ?offset= (0 or more) of a list, each left as
 * it is when not given. 0, or -EINVAL with the 400 naming the one that is
 * wrong queued in *ret.
 */
int api_page(struct http_request *rq, int max, int64_t *limit, int64_t *offset,
	     enum MHD_Result *ret);

#endif
