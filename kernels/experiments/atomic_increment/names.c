/* names.c - atomic_increment's names, defined once: its variants, the label of a team and the summary keys of a thread count */
#include <stdio.h>

#include "ai.h"

const struct param_choice ai_variants[] = {{"add_fetch", V_ADD_FETCH},
					   {"fetch_add", V_FETCH_ADD},
					   {"cas", V_CAS},
					   {"c11_relaxed", V_C11_RELAXED},
					   {"c11_seq_cst", V_C11_SEQ_CST},
					   {"lock_skip", V_LOCK_SKIP},
					   {"plain", V_PLAIN},
					   {"per_thread", V_PER_THREAD},
					   {0}};

void ai_label(char *buf, size_t len, int n, int v)
{
	snprintf(buf, len, "threads=%d variant=%s", n, ai_variants[v].name);
}

void key_ns(char *buf, size_t len, int v, int n)
{
	snprintf(buf, len, "ns_per_increment_%s_%d_threads",
		 ai_variants[v].name, n);
}

void key_cas_over(char *buf, size_t len, int n)
{
	snprintf(buf, len, "cas_over_fetch_add_%d_threads", n);
}

void key_retries(char *buf, size_t len, int n)
{
	snprintf(buf, len, "cas_retries_per_increment_%d_threads", n);
}

void key_lost(char *buf, size_t len, int n)
{
	snprintf(buf, len, "lost_updates_plain_%d_threads", n);
}
