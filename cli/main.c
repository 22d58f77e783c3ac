/* main.c - the numalab binary: dispatch to the subcommands (serve is the server, the rest the command line) */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "experiment.h"
#include "names.h"
#include "registry.h"
#include "say.h"
#include "stdout_close.h"
#include "version.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: numalab <command> [options]\n"
		"\n"
		"commands:\n"
		"  serve [--listen ADDR:PORT] [--db PATH]   start the dashboard and API\n"
		"  run [--json|--ndjson] [--max-seconds N] NAME [k=v ...]\n"
		"                                           run one experiment here\n"
		"  run NAME --help                          the experiment's parameters\n"
		"  list [--json]                            the experiments\n"
		"  topology [--json]                        this machine as numalab sees it\n"
		"  rates [--refresh]                        what run-time estimates are based on\n"
		"  estimate [--json] NAME [k=v ...]         how long a run would take here\n"
		"  fleet run NAME [k=v ...] --engine E ...  the same run on many machines\n"
		"  fleet deliver DIR --db F|--server URL    a campaign's runs, sent again\n"
		"\n"
		"experiments:\n");
	for (int i = 0; experiments[i]; i++)
		fprintf(f, "  %-*s  %s\n", names_width(), experiments[i]->name,
			experiments[i]->title);
	fprintf(f, "\n`numalab serve --help` lists the server's options.\n");
}

/* The subcommands, in the order the unknown-command error names them. */
static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{"serve", cmd_serve}, {"run", cmd_run},
	{"list", cmd_list},   {"topology", cmd_topology},
	{"rates", cmd_rates}, {"estimate", cmd_estimate},
	{"fleet", cmd_fleet}, {NULL, NULL},
};

static int dispatch(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("numalab %s\n", numalab_version());
		return 0;
	}
	for (const struct command *c = commands; c->name; c++)
		if (!strcmp(argv[1], c->name))
			return c->run(argc - 1, argv + 1);
	const char *names[sizeof(commands) / sizeof(commands[0])];
	size_t n = 0;
	for (const struct command *c = commands; c->name; c++)
		names[n++] = c->name;
	names[n] = NULL;
	names_unknown_command(stderr, argv[1], names);
	return 2;
}

/* Whatever the command, its output was written or the exit status says
 * it was not: each command prints and leaves the checking to here. */
int main(int argc, char **argv)
{
	return stdout_close("numalab", dispatch(argc, argv));
}
