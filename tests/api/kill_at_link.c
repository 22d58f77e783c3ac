/* kill_at_link.c - preloaded into a server: SIGKILL as it links a stored run to its campaign node */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <string.h>

#include <sqlite3.h>

static int (*real_step)(sqlite3_stmt *);

__attribute__((constructor)) static void find_real(void)
{
	real_step = (int (*)(sqlite3_stmt *))dlsym(RTLD_NEXT, "sqlite3_step");
}

/*
 * The statement that gives a campaign's node its run (campaign_nodes.c),
 * with a run bound: the server dies there, the run stored a moment
 * before, as a SIGKILL between the two would find it.
 */
int sqlite3_step(sqlite3_stmt *s)
{
	static const char link[] = "UPDATE campaign_nodes SET state=";
	char *sql = sqlite3_expanded_sql(s);

	if (sql && !strncmp(sql, link, sizeof(link) - 1) &&
	    !strstr(sql, "coalesce(run_id, NULL)"))
		raise(SIGKILL);
	sqlite3_free(sql);
	return real_step(s);
}
