/* opts.c - a command's options as one table: name, destination, limits, help */
#include "opts.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "say.h"

/* The row a matches, with *eq pointing at its "=value" when it has one. */
static const struct opt *find(const struct opts_cmd *cmd, const char *a,
			      const char **eq)
{
	*eq = NULL;
	for (const struct opt *r = cmd->table; r->type != OPTION_END; r++) {
		size_t n = strlen(r->name);
		int value = r->type == OPTION_STRING || r->type == OPTION_INT ||
			    r->type == OPTION_CALL;
		if (r->type == OPTION_DOC)
			continue;
		if (!strcmp(a, r->name) || (r->alias && !strcmp(a, r->alias)))
			return r;
		if (value && (cmd->flags & OPTS_EQUALS) &&
		    !strncmp(a, r->name, n) && a[n] == '=') {
			*eq = a + n + 1;
			return r;
		}
	}
	return NULL;
}

/* "PROG: " and one of the command's messages, its arguments by position. */
static void complain(const struct opts_cmd *cmd, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	vsnprintf(msg, sizeof(msg), fmt, ap);
#pragma GCC diagnostic pop
	va_end(ap);
	say(stderr, "%s: %s\n", cmd->prog, msg);
}

/*
 * A number within min..max from v into *out (the whole of v, in base 10).
 * 0, or -EINVAL when it is not one.
 */
static int opts_long(const char *v, long min, long max, long *out)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || end == v || *end || x < min || x > max)
		return -EINVAL;
	*out = x;
	return 0;
}

/* Row r with its value v (or none) into dest: 0, or -EINVAL said. */
static int take(const struct opts_cmd *cmd, const struct opt *r, const char *v,
		void *dest)
{
	void *to = (char *)dest + r->off;
	long x;

	switch (r->type) {
	case OPTION_FLAG:
		*(int *)to = 1;
		return 0;
	case OPTION_SET:
		*(int *)to = (int)r->min;
		return 0;
	case OPTION_STRING:
		*(const char **)to = v;
		return 0;
	case OPTION_INT:
		if (opts_long(v, r->min, r->max, &x)) {
			complain(cmd, cmd->bad_int, r->name, v, r->min, r->max);
			return -EINVAL;
		}
		*(int *)to = (int)x;
		return 0;
	case OPTION_CALL:
		return r->call(dest, v);
	default:
		return -EINVAL;
	}
}

/*
 * OPTS_ONCE: row r given, the rows given before it marked in seen (a bit a
 * row, the first 64 of a table). 0, or -EINVAL said when r was given
 * already or a row of the same choice was.
 */
static int once(const struct opts_cmd *cmd, const struct opt *r, uint64_t *seen)
{
	size_t k = (size_t)(r - cmd->table);

	if (!(cmd->flags & OPTS_ONCE) || r->many || k >= 64)
		return 0;
	if (*seen & (1ull << k)) {
		complain(cmd, "'%s' is given twice", r->name);
		return -EINVAL;
	}
	for (size_t j = 0; r->type == OPTION_SET && j < 64 &&
			   cmd->table[j].type != OPTION_END;
	     j++) {
		const struct opt *o = &cmd->table[j];
		if ((*seen & (1ull << j)) && o->type == OPTION_SET &&
		    o->off == r->off) {
			complain(cmd, "give %s or %s, not both", o->name,
				 r->name);
			return -EINVAL;
		}
	}
	*seen |= 1ull << k;
	return 0;
}

int opts_parse(const struct opts_cmd *cmd, int argc, char **argv, void *dest)
{
	uint64_t seen = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq, *v = NULL;
		const struct opt *r = find(cmd, a, &eq);
		int dash = (cmd->flags & OPTS_DASH)
				   ? a[0] == '-'
				   : a[0] == '-' && a[1] == '-';
		if (!r && (dash || !cmd->arg)) {
			complain(cmd, cmd->unknown, a);
			return 2;
		}
		if (!r) {
			int rc = cmd->arg(dest, a);
			if (rc >= 0)
				return rc;
			continue;
		}
		if (r->type == OPTION_HELP) {
			opts_usage(cmd, stdout);
			return 0;
		}
		if (once(cmd, r, &seen))
			return 2;
		if (r->type == OPTION_STRING || r->type == OPTION_INT ||
		    r->type == OPTION_CALL) {
			if (!eq && i + 1 >= argc) {
				complain(cmd, cmd->no_value, a);
				return 2;
			}
			v = eq ? eq : argv[++i];
		}
		if (take(cmd, r, v, dest))
			return 2;
	}
	return -1;
}

/* A row's help: its name and value's name, then its lines from column
 * col, the first on a line of its own when the name reaches col. */
static void row_usage(const struct opt *r, int col, FILE *f)
{
	const char *h = r->help;
	int n = fprintf(f, "  %s%s%s", r->name, r->argh ? " " : "",
			r->argh ? r->argh : "");

	if (n + 1 > col) {
		fputc('\n', f);
		n = 0;
	}
	for (;;) {
		size_t len = strcspn(h, "\n");
		fprintf(f, "%*s%.*s\n", col - n, "", (int)len, h);
		if (!h[len])
			break;
		h += len + 1;
		n = 0;
	}
}

void opts_usage(const struct opts_cmd *cmd, FILE *f)
{
	fputs(cmd->head, f);
	for (const struct opt *r = cmd->table; r->type != OPTION_END; r++)
		if (r->help)
			row_usage(r, cmd->help_col, f);
	if (cmd->tail)
		fputs(cmd->tail, f);
}
