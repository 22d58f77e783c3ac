/* opts.h - a command's argv read against its table of options */
#ifndef NUMALAB_OPTS_H
#define NUMALAB_OPTS_H

/* One option a command takes. */
struct opt {
	const char *name;  /* "--listen" */
	const char *alias; /* "-h", or NULL */
	int value;	   /* takes a value: the next argument */
	int id;		   /* what opts_next returns for it, > 0 */
};

/* "--name=value" as well as "--name value" (options with a value only). */
#define OPTS_EQUALS 1u
/* An argument the table lacks is an unknown option when it starts with "-";
 * without this flag only one starting with "--" is. */
#define OPTS_DASH 2u

enum {
	OPTS_END = 0,	    /* argv is read */
	OPTS_ARG = -1,	    /* a positional argument, in arg */
	OPTS_UNKNOWN = -2,  /* an option the table lacks, in arg */
	OPTS_NO_VALUE = -3, /* an option needing a value came last, in arg */
};

struct opts {
	const struct opt *table; /* NULL-name-terminated */
	unsigned flags;		 /* OPTS_* */
	int argc;
	char **argv;
	int i;		   /* the next argument to read: 1 to begin with */
	const char *arg;   /* the argument just read */
	const char *value; /* its value, for an option that takes one */
};

#define OPTS_INIT(tbl, fl, ac, av)                                             \
	{                                                                      \
		.table = (tbl), .flags = (fl), .argc = (ac), .argv = (av),     \
		.i = 1                                                         \
	}

/*
 * Reads the next argument: the id of its row (value set when the row takes
 * one), or one of OPTS_END, OPTS_ARG, OPTS_UNKNOWN, OPTS_NO_VALUE. Names
 * match exactly: there are no abbreviations and no reordering of argv.
 */
int opts_next(struct opts *o);

#endif
