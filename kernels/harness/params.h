/* params.h - the param table type, parsing of k=v values, validation */
#ifndef NUMALAB_PARAMS_H
#define NUMALAB_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "errinfo.h"
#include "numtext.h"

struct topo; /* topo.h */

#define PARAM_MAX_LIST 1024 /* longest list a list-typed param may hold */
/*
 * The largest value a list row (SWEEP, CPULIST, NODELIST) may allow, so
 * that PARAM_MAX_LIST of them, written out with commas, fit a value's
 * text: every list the parser takes is recorded (checked by
 * experiment_lint).
 */
#define PARAM_LIST_VALUE_MAX 99999
/* A value's text, its NUL included: a list of PARAM_MAX_LIST values of
 * up to 5 digits, a comma between them. The longest text a user may
 * write is one less. */
#define PARAM_VALUE_LEN (PARAM_MAX_LIST * 6)
/*
 * The most params one experiment takes, its own table and the common ones
 * together; a table over it is refused by experiment_parse and by the
 * registry test, never trimmed.
 */
#define PARAM_MAX_PER_EXP 24
/* SET values become bits of an unsigned mask: choice values stay below this */
#define PARAM_MAX_SET_VALUE 31
#define PARAM_ERR_LEN ERRINFO_MSG_LEN

enum param_type {
	PARAM_INT,	/* one integer in [min, max] */
	PARAM_SIZE,	/* bytes, with optional K/M/G suffix (powers of 1024) */
	PARAM_SWEEP,	/* a list of integers: "4", "1-4", "1,2,4", "2-8:2" */
	PARAM_ENUM,	/* exactly one of choices */
	PARAM_SET,	/* a subset of choices, comma separated, or "all" */
	PARAM_CPULIST,	/* a CPU list like "0,2-3"; empty means "not given" */
	PARAM_NODELIST, /* a NUMA node list like "0-1"; empty means "not given"
			 */
	PARAM_TEXT /* a text of a form of its own, read by the row's parse hook
		    */
};

/* One choice of an ENUM or SET: the text a user types and the value it stands
 * for. */
struct param_choice {
	const char *name;
	int value;
};

/* The field a SWEEP, CPULIST or NODELIST param fills: sorted, no duplicates. */
struct int_list {
	int n;
	int32_t v[PARAM_MAX_LIST];
};

/* The largest value of l; 0 when it is empty. */
static inline int int_list_max(const struct int_list *l)
{
	int m = 0;

	for (int i = 0; i < l->n; i++)
		if (l->v[i] > m)
			m = l->v[i];
	return m;
}

/*
 * One row of an experiment's param table: the single source for validation,
 * defaults, the CLI's --help, the API schema and the web form.
 */
struct param {
	const char *name;
	enum param_type type;
	const char *def;  /* default, in the same text form a user types */
	int64_t min, max; /* INT, SIZE: value range; SWEEP: element range */
	const struct param_choice
		*choices; /* ENUM, SET: NULL-name-terminated */
	const char *unit; /* "threads", "bytes", ... or NULL */
	const char *help; /* one line */
	unsigned flags;	  /* PARAM_F_* */
	/*
	 * offsetof the field this row fills in the struct its table fills:
	 * INT, SIZE: int64_t; ENUM: int (the choice's value); SET: unsigned,
	 * bit (1u << value) set for each chosen choice; SWEEP, CPULIST,
	 * NODELIST: struct int_list; TEXT: field_size bytes, as parse fills
	 * them.
	 */
	size_t offset;
	/*
	 * TEXT: reads text into field (field_size bytes, at most
	 * PARAM_TEXT_MAX) and writes its normal form into norm. Returns 0,
	 * or -EINVAL with err set (field named by the caller).
	 */
	int (*parse)(const char *text, void *field, char *norm, size_t normlen,
		     struct errinfo *err);
	size_t field_size;
	/*
	 * Where the default depends on the machine: writes t's default into
	 * buf (def is what a run on an unknown machine gets); the resolved
	 * value is recorded with the run. NULL: def everywhere.
	 */
	void (*machine_def)(const struct topo *t, char *buf, size_t len);
	/*
	 * "mode=sizes,loaded": the row is read only while that param (of
	 * the same experiment) holds one of those choices, or for a set,
	 * while one of them is among its choices; "cpus=", nothing after
	 * '=': only while that param is empty. A request that gives the
	 * row's param otherwise is refused (experiment_parse), and a run's
	 * header and the page leave it out. NULL: it is always read.
	 */
	const char *only;
};

/*
 * One row per call: the param is named after the field it fills, in the
 * struct the including file names as PARAM_STRUCT (#define PARAM_STRUCT
 * struct my_params, above the table). Anything a row needs beyond its
 * kind's arguments (.flags, .machine_def) follows as designated
 * initialisers. Each macro is named after the type of row it makes.
 */
#define PARAM_ROW_(field, t, ...)                                              \
	{                                                                      \
		.name = #field, .type = (t),                                   \
		.offset = offsetof(PARAM_STRUCT, field), __VA_ARGS__           \
	}
#define PARAM_NUM_(t, field, d, lo, hi, u, h, ...)                             \
	PARAM_ROW_(field, t, .def = (d), .min = (lo), .max = (hi),             \
		   .unit = (u), .help = (h), __VA_ARGS__)
#define PARAM_INT(field, d, lo, hi, u, h, ...)                                 \
	PARAM_NUM_(PARAM_INT, field, d, lo, hi, u, h, __VA_ARGS__)
#define PARAM_SIZE(field, d, lo, hi, u, h, ...)                                \
	PARAM_NUM_(PARAM_SIZE, field, d, lo, hi, u, h, __VA_ARGS__)
#define PARAM_SWEEP(field, d, lo, hi, u, h, ...)                               \
	PARAM_NUM_(PARAM_SWEEP, field, d, lo, hi, u, h, __VA_ARGS__)
#define PARAM_CPULIST(field, d, lo, hi, h, ...)                                \
	PARAM_NUM_(PARAM_CPULIST, field, d, lo, hi, NULL, h, __VA_ARGS__)
#define PARAM_NODELIST(field, d, lo, hi, h, ...)                               \
	PARAM_NUM_(PARAM_NODELIST, field, d, lo, hi, NULL, h, __VA_ARGS__)
#define PARAM_ENUM(field, d, ch, h, ...)                                       \
	PARAM_ROW_(field, PARAM_ENUM, .def = (d), .choices = (ch),             \
		   .help = (h), __VA_ARGS__)
#define PARAM_SET(field, d, ch, h, ...)                                        \
	PARAM_ROW_(field, PARAM_SET, .def = (d), .choices = (ch), .help = (h), \
		   __VA_ARGS__)
/* TEXT: fn reads the text into the field, whose size the row records. */
#define PARAM_TEXT(field, d, fn, h, ...)                                       \
	PARAM_ROW_(field, PARAM_TEXT, .def = (d), .parse = (fn), .help = (h),  \
		   .field_size = sizeof(((PARAM_STRUCT *)0)->field),           \
		   __VA_ARGS__)

/* The largest field a TEXT row may fill. */
#define PARAM_TEXT_MAX 256

/*
 * The value counts threads, one per CPU: at most the CPUs allowed to the
 * process (checked by experiment_parse); a default that asks for more is
 * trimmed to what the machine has, and the trimmed value is recorded.
 */
#define PARAM_F_CPUS 1u
/*
 * The value is the bytes of a buffer meant to measure memory, not cache:
 * where the machine is known its default becomes MEM_LLC_MULTIPLE times
 * the machine's last-level cache (mem_size.h; def is what a machine
 * with unknown caches gets), and the resolved value is recorded.
 */
#define PARAM_F_MEMORY 2u

/* A parsed value. Lists are stored inline so a value needs no freeing. */
struct param_value {
	const struct param *p;
	int64_t i; /* INT, SIZE; ENUM: the choice's value; SET: the mask */
	int n;	   /* SWEEP, SET, CPULIST, NODELIST: element count */
	/* the normalised text, as it is recorded and passed to the worker */
	char text[PARAM_VALUE_LEN];
	union {
		int32_t list[PARAM_MAX_LIST];	     /* SWEEP/CPULIST/NODELIST
							elements; SET: choice indexes
						      */
		unsigned char field[PARAM_TEXT_MAX]; /* TEXT: the field as parse
							filled it */
	};
};

/* About 250 KiB: allocate it (calloc), never put it on a small stack. */
struct param_values {
	int n;
	struct param_value v[PARAM_MAX_PER_EXP];
};

/*
 * Whether p matters to a run of these values (p->only, see struct param):
 * 1 when it does or when the param p->only names is not among them.
 */
int param_applies(const struct param *p, const struct param_values *pv);

/*
 * Whether the value v holds one of the n bytes of want, a comma list of
 * texts (a row's only after its '='): its text is one of them, or for a
 * set one of its chosen names is; n == 0 asks whether v is empty.
 */
int param_holds(const struct param_value *v, const char *want, size_t n);

/*
 * Parses "k=v" assignments (argv style) against the tables (each
 * NULL-name-terminated), filling defaults for everything not given.
 * Returns 0, or -EINVAL with err naming the field and what is allowed.
 */
int params_parse(const struct param *const *tables, int ntables, int argc,
		 char *const *argv, struct param_values *out,
		 struct errinfo *err);

/*
 * The row named by the first len bytes of name (a "k=v" text may be passed
 * with the length of k), searched in tables in order; NULL when none has it.
 */
const struct param *params_find(const struct param *const *tables, int ntables,
				const char *name, size_t len);

/*
 * Whether a value of len characters may be given for the param called
 * name: 0, or -EINVAL with err saying the longest (PARAM_VALUE_LEN - 1),
 * the one limit every route that takes a value names.
 */
int param_check_length(const char *name, size_t len, struct errinfo *err);

/* Parses one value for one param. Returns 0 or -EINVAL (err->msg set). */
int param_parse_value(const struct param *p, const char *text,
		      struct param_value *out, struct errinfo *err);

/* The size of the field row p fills. */
size_t param_row_size(const struct param *p);

/*
 * Whether the ENUM or SET row p's field in the struct at base holds the
 * choice called name: is it (enum), or is among them (set). 0 for a name
 * that is not one of p's choices, or a row of another type.
 */
int param_chosen(const struct param *p, const void *base, const char *name);

/* Writes a parsed value into the field its row names, at base + offset. */
void param_store(const struct param_value *v, void *base);

/*
 * Lookup of a parsed value's text form by name, for code that records or
 * shows the request; experiments read their typed struct instead. NULL if
 * the tables have no such param.
 */
const struct param_value *params_get(const struct param_values *pv,
				     const char *name);

const char *param_type_name(enum param_type t);

#endif
