/* commands.c - the list and topology subcommands */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "commands.h"
#include "experiment.h"
#include "machine.h"
#include "names.h"
#include "opts.h"
#include "registry.h"
#include "say.h"
#include "schema.h"
#include "strbuf.h"
#include "term.h"
#include "topo_text.h"

/* What list's and topology's argv ask for: --json or not. */
struct json_arg {
	int json;
};

/* A word list and topology do not take: neither has an argument. */
static int no_arg(const char *prog, const char *arg)
{
	say(stderr, "%s: unexpected argument '%s' (options: --json)\n", prog,
	    arg);
	return 2;
}

static int list_arg(void *dest, const char *arg)
{
	(void)dest;
	return no_arg("numalab list", arg);
}

static const struct opt list_table[] = {
	OPT_FLAG("--json", struct json_arg, json,
		 "every experiment's schema (its parameters with their\n"
		 "types, defaults and limits on this machine, its charts),\n"
		 "as GET /api/experiments answers"),
	OPT_HELP(NULL),
	OPT_END(),
};

static const struct opts_cmd list_cmd = {
	.prog = "numalab list",
	.table = list_table,
	.flags = OPTS_DASH | OPTS_ONCE,
	.unknown = "unknown option '%1$s' (options: --json)",
	.arg = list_arg,
	.help_col = 10,
	.head = "usage: numalab list [--json]\n"
		"\n"
		"The experiments: name, the article's section, what each does.\n"
		"\n",
};

int cmd_list(int argc, char **argv)
{
	struct json_arg o = {0};
	int rc = opts_parse(&list_cmd, argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (o.json) {
		struct topo *t = topo_load();
		json_t *a;

		/* the limits are this machine's or the file's: none made up */
		if (!t) {
			say(stderr,
			    "numalab list: cannot read the topology: %s\n",
			    topo_load_error());
			return 1;
		}
		a = schema_experiments(t);
		json_dumpf(a, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(a);
		topo_free(t);
		return 0;
	}
	int w = names_width(), ws = 0;

	for (int i = 0; experiments[i]; i++) {
		const char *sec = experiments[i]->section;
		int n = sec ? (int)strlen(sec) : 0;
		ws = n > ws ? n : ws;
	}
	/* the summaries wrapped under their column, to the terminal's width */
	int cols = term_columns(stdout), indent = w + 2 + ws + 2;
	for (int i = 0; experiments[i]; i++) {
		struct strbuf sb = STRBUF_INIT;

		term_wrap(&sb, experiments[i]->summary, indent,
			  cols > indent + 20 ? cols : 0);
		printf("%-*s  %-*s  %s\n", w, experiments[i]->name, ws,
		       experiments[i]->section ? experiments[i]->section : "",
		       strbuf_str(&sb));
		strbuf_release(&sb);
	}
	return 0;
}

static int topology_arg(void *dest, const char *arg)
{
	(void)dest;
	return no_arg("numalab topology", arg);
}

static const struct opt topology_table[] = {
	OPT_FLAG("--json", struct json_arg, json,
		 "the topology and the machine's facts, as GET /api/topology\n"
		 "answers"),
	OPT_HELP(NULL),
	OPT_END(),
};

static const struct opts_cmd topology_cmd = {
	.prog = "numalab topology",
	.table = topology_table,
	.flags = OPTS_DASH | OPTS_ONCE,
	.unknown = "unknown option '%1$s' (options: --json)",
	.arg = topology_arg,
	.help_col = 10,
	.head = "usage: numalab topology [--json]\n"
		"\n"
		"This machine as numalab sees it (through hwloc): packages, caches,\n"
		"cores and CPUs as a picture, then each NUMA node's CPUs, memory and\n"
		"distances. HWLOC_XMLFILE or HWLOC_SYNTHETIC in the environment\n"
		"stand for another machine.\n"
		"\n",
};

int cmd_topology(int argc, char **argv)
{
	struct json_arg o = {0};
	int rc = opts_parse(&topology_cmd, argc, argv, &o);
	struct topo *t;

	if (rc >= 0)
		return rc;
	t = topo_load();
	if (!t) {
		say(stderr, "numalab topology: cannot read the topology: %s\n",
		    topo_load_error());
		return 1;
	}
	if (o.json) {
		json_t *o = schema_topology(t);
		json_object_set_new(o, "machine", machine_json(t));
		json_dumpf(o, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(o);
	} else {
		struct strbuf pic = STRBUF_INIT;

		strbuf_init(&pic);
		topo_text(t, &pic);
		printf("%s\n", strbuf_str(&pic));
		strbuf_reset(&pic);
		topo_facts_text(t, &pic);
		fputs(strbuf_str(&pic), stdout);
		strbuf_release(&pic);
		for (int i = 0; i < t->ncaches; i++)
			if (t->cache[i].logical == 0)
				printf("L%d: %llu KiB per %d PU%s, line %d B\n",
				       t->cache[i].level,
				       (unsigned long long)t->cache[i].size /
					       1024,
				       t->cache[i].npus,
				       t->cache[i].npus == 1 ? "" : "s",
				       t->cache[i].line_size);
		if (t->ncaches == 0)
			printf("caches: none given by the topology (an L2 or "
			       "L3 of '-' below)\n");
		printf("cpu  core pkg node  L2  L3 allowed\n");
		for (int i = 0; i < t->npus; i++) {
			const struct topo_pu *p = &t->pu[i];
			char l2[16] = "-", l3[16] = "-";

			if (p->l2 >= 0)
				snprintf(l2, sizeof(l2), "%d", p->l2);
			if (p->l3 >= 0)
				snprintf(l3, sizeof(l3), "%d", p->l3);
			printf("%3d %5d %3d %4d %3s %3s %s\n", p->os, p->core,
			       p->package, p->node, l2, l3,
			       p->allowed ? "yes" : "no");
		}
	}
	topo_free(t);
	return 0;
}
