/* worker_main.c - numalab-worker: `numalab run` alone, the program the server starts for each run */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "stdout_close.h"
#include "version.h"

/*
 * The server execs this program for every run with numalab's own argv
 * ("numalab run --ndjson NAME k=v ..."): it runs the run subcommand as
 * numalab does, byte for byte, and nothing else. It is linked from the
 * objects `run` needs alone (the Makefile's worker rule), so its start
 * loads five libraries where numalab loads forty.
 */
static int dispatch(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	/* what the rates time as a worker's start (rates_start.c) */
	if (argc == 2 && !strcmp(argv[1], "--start"))
		return run_start_only();
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("numalab-worker %s\n", numalab_version());
		return 0;
	}
	fputs("usage: numalab-worker run [--json|--ndjson] [--max-seconds N] NAME [k=v ...]\n"
	      "\n"
	      "The program numalab serve starts for each run: `numalab run` "
	      "alone,\nwith its arguments and output (numalab run --help).\n",
	      stderr);
	return 2;
}

/* the run's events written, or the exit status says they were not */
int main(int argc, char **argv)
{
	return stdout_close("numalab-worker", dispatch(argc, argv));
}
