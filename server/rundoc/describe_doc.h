/* describe_doc.h - a stored or imported run document described again with today's rules */
#ifndef NUMALAB_DESCRIBE_DOC_H
#define NUMALAB_DESCRIBE_DOC_H

#include <jansson.h>

#include "errinfo.h"
#include "point_text.h"
#include "verdict.h"

/*
 * Reads a run document (docs/events.md: params, samples, cells, summary,
 * placement, machine) into a run_result and hands it to its experiment's
 * describe hook. The machine facts come from the document's machine
 * record, never from the machine that reads it. complete: the run ended
 * normally ("done"). Returns 0 with v filled, or -EINVAL with err set (no
 * such experiment, params its table refuses) or -ENOMEM.
 */
int describe_doc(json_t *doc, struct verdict *v, struct errinfo *err);
/* describe_doc of a document whose samples dt keeps as text, where they
 * are placeholders (point_text.h); dt may be NULL. */
int describe_doc_text(json_t *doc, const struct doc_text *dt, struct verdict *v,
		      struct errinfo *err);

/* The machine facts a stored machine record gives (unknowns left at 0 / -1). */
void describe_doc_machine(json_t *machine, struct machine_facts *m);

/*
 * {"headline": text or null, "notes": [{"level","text"}],
 * "marks": [{"key","mark","why"}]}; NULL on ENOMEM.
 */
json_t *describe_doc_verdict_json(const struct verdict *v);

/*
 * The verdict today's rules give doc as that JSON, with "changed": whether
 * its headline differs from the one doc holds. NULL when doc cannot be
 * described (err says why when given), errno EINVAL, or with errno ENOMEM.
 */
json_t *describe_doc_today(json_t *doc, struct errinfo *err);
/* The same, of a document whose samples dt keeps as text. */
json_t *describe_doc_today_text(json_t *doc, const struct doc_text *dt,
				struct errinfo *err);

#endif
