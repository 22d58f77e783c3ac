/* main.c - the numalab binary: dispatch to the subcommands (serve is the server, the rest the command line) */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "experiment.h"
#include "say.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: numalab <command> [options]\n"
		"\n"
		"commands:\n"
		"  serve [--listen ADDR:PORT] [--db PATH]   start the dashboard and API\n"
		"  run [--json|--ndjson] NAME [k=v ...]     run one experiment here\n"
		"  run NAME --help                          the experiment's parameters\n"
		"  list [--json]                            the experiments\n"
		"  topology [--json]                        this machine as numalab sees it\n"
		"  rates [--refresh]                        what run-time estimates are based on\n"
		"  estimate [--json] NAME [k=v ...]         how long a run would take here\n"
		"  fleet run NAME [k=v ...] --engine E ...  the same run on many machines\n"
		"\n"
		"experiments:\n");
	for (int i = 0; experiments[i]; i++)
		fprintf(f, "  %-20s %s\n", experiments[i]->name,
			experiments[i]->title);
	fprintf(f, "\n`numalab serve --help` lists the server's options.\n");
}

int main(int argc, char **argv)
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
		printf("numalab %s\n", NUMALAB_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "serve"))
		return cmd_serve(argc - 1, argv + 1);
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "topology"))
		return cmd_topology(argc - 1, argv + 1);
	if (!strcmp(argv[1], "rates"))
		return cmd_rates(argc - 1, argv + 1);
	if (!strcmp(argv[1], "estimate"))
		return cmd_estimate(argc - 1, argv + 1);
	if (!strcmp(argv[1], "fleet"))
		return cmd_fleet(argc - 1, argv + 1);
	say(stderr,
	    "numalab: unknown command '%s' (commands: serve, run, list, topology, rates, estimate, fleet)\n",
	    argv[1]);
	return 2;
}
