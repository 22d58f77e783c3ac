/* commands.h - the subcommands of the numalab binary */
#ifndef NUMALAB_COMMANDS_H
#define NUMALAB_COMMANDS_H

/* Each returns the process exit status; argv[0] is the subcommand name. */
int cmd_serve(int argc, char **argv); /* cli/serve.c */
int cmd_run(int argc, char **argv);   /* cli/run.c: also the server's worker */
int cmd_list(int argc, char **argv);  /* cli/commands.c */
int cmd_topology(int argc, char **argv); /* cli/commands.c */
int cmd_rates(int argc, char **argv);	 /* cli/rates_cmd.c */
int cmd_estimate(int argc, char **argv); /* cli/rates_cmd.c */
int cmd_fleet(int argc, char **argv);	 /* cli/fleet/fleet.c */

/* What a run does before its experiment (the topology, the rates' cache,
 * the machine record printed), and nothing else: numalab-worker --start,
 * which the rates time as a worker's start. 0, or 1 without a topology. */
int run_start_only(void); /* cli/run.c */

#endif
