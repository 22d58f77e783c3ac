/* opts.h - a command's options as one table: name, destination, limits, help */
#ifndef NUMALAB_OPTS_H
#define NUMALAB_OPTS_H

#include <stddef.h>
#include <stdio.h>

/* What an option does with its value (as git's parse-options' OPTION_*). */
enum opt_type {
	OPTION_END = 0, /* the row that ends a table */
	OPTION_FLAG,	/* no value: sets an int to 1 */
	OPTION_SET,	/* no value: sets an int to the row's min */
	OPTION_STRING,	/* a value: a const char * points at it */
	OPTION_INT,	/* a value: an int within min..max */
	OPTION_CALL,	/* a value: the row's call reads it */
	OPTION_HELP,	/* no value: the usage on stdout, and exit status 0 */
	OPTION_DOC,	/* never matched: a line of the help of its own */
};

/* One option a command takes: one row of its table. */
struct opt {
	enum opt_type type;
	const char *name;  /* "--listen" */
	const char *alias; /* "-h", or NULL */
	size_t off;	   /* the destination in the command's struct */
	long min, max;	   /* OPTION_INT: the range; OPTION_SET: the value */
	/* OPTION_CALL: reads v into the command's struct; 0, or -EINVAL said */
	int (*call)(void *dest, const char *v);
	const char *argh; /* the value's name in the help: "ADDR:PORT" */
	const char *help; /* its lines, '\n' between; NULL: not listed */
	int many;	  /* OPTS_ONCE: the row may be given again */
};

#define OPT_FLAG(n, type, field, h)                                            \
	{                                                                      \
		OPTION_FLAG, (n), NULL, offsetof(type, field), 0, 0, NULL,     \
			NULL, (h), 0                                           \
	}
#define OPT_SET(n, type, field, value, h)                                      \
	{                                                                      \
		OPTION_SET, (n), NULL, offsetof(type, field), (value), 0,      \
			NULL, NULL, (h), 0                                     \
	}
#define OPT_STRING(n, type, field, a, h)                                       \
	{                                                                      \
		OPTION_STRING, (n), NULL, offsetof(type, field), 0, 0, NULL,   \
			(a), (h), 0                                            \
	}
#define OPT_INT(n, type, field, lo, hi, a, h)                                  \
	{                                                                      \
		OPTION_INT, (n), NULL, offsetof(type, field), (lo), (hi),      \
			NULL, (a), (h), 0                                      \
	}
#define OPT_CALL(n, fn, a, h)                                                  \
	{                                                                      \
		OPTION_CALL, (n), NULL, 0, 0, 0, (fn), (a), (h), 0             \
	}
/* the same, given as often as wanted under OPTS_ONCE: "--allowed-host" */
#define OPT_CALL_MANY(n, fn, a, h)                                             \
	{                                                                      \
		OPTION_CALL, (n), NULL, 0, 0, 0, (fn), (a), (h), 1             \
	}
#define OPT_HELP(h)                                                            \
	{                                                                      \
		OPTION_HELP, "--help", "-h", 0, 0, 0, NULL, NULL, (h), 0       \
	}
/* a line of the help that is no option: "--engine clush" beside "--engine" */
#define OPT_DOC(left, h)                                                       \
	{                                                                      \
		OPTION_DOC, (left), NULL, 0, 0, 0, NULL, NULL, (h), 0          \
	}
#define OPT_END()                                                              \
	{                                                                      \
		OPTION_END, NULL, NULL, 0, 0, 0, NULL, NULL, NULL, 0           \
	}

/* "--name=value" as well as "--name value" (options with a value only). */
#define OPTS_EQUALS 1u
/* An argument the table lacks is an unknown option when it starts with "-";
 * without this flag only one starting with "--" is. */
#define OPTS_DASH 2u
/* Each option at most once (but a row marked many), and OPTION_SET rows of
 * one destination (--json, --ndjson) one choice: a second is refused, never
 * read as last one wins. */
#define OPTS_ONCE 4u

/*
 * A command: its table, its messages and its usage. The messages follow
 * "PROG: " and take their arguments by position: unknown and no_value the
 * argument (%1$s); bad_int the option's name (%1$s), the value (%2$s),
 * then min and max (%3$ld, %4$ld).
 */
struct opts_cmd {
	const char *prog; /* "numalab serve" */
	const struct opt *table;
	unsigned flags; /* OPTS_* */
	const char *unknown, *no_value, *bad_int;
	/*
	 * A positional argument (NULL: it is an unknown option): -1 to go
	 * on, or the exit status (said).
	 */
	int (*arg)(void *dest, const char *arg);
	/* the usage: head, then each listed row, its help from column
	 * help_col (on a line of its own when the name reaches it), tail */
	const char *head, *tail;
	int help_col;
};

/*
 * Reads argv[1..argc-1] into dest against cmd's table, as git's
 * parse_options does: names match whole, no abbreviations. Returns -1 to
 * go on, 0 when --help printed the usage, or 2 for a bad request (said).
 */
int opts_parse(const struct opts_cmd *cmd, int argc, char **argv, void *dest);

/* The usage: head, the options' help from the table, tail. */
void opts_usage(const struct opts_cmd *cmd, FILE *f);

#endif
