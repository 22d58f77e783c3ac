/* numa_mem.c - the NUMA system calls: probe, allocate under a policy, ask where pages are, move them */
#define _GNU_SOURCE
#include "numa_mem.h"

#include <errno.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stats.h"

const char *const nmem_policy_names[] = {
	"default", "bind",	     "preferred", "interleave",
	"local",   "preferred_many", NULL};
const char *const nmem_scope_names[] = {"vma", "task", NULL};

#define MASK_WORDS (NMEM_MAX_NODE / (8 * sizeof(unsigned long)))
/* the kernel reads maxnode - 1 bits: pass one more than the mask holds */
#define MASK_MAXNODE (NMEM_MAX_NODE + 1)
/* pages per move_pages call: bounds the arrays, not the buffer */
#define QUERY_CHUNK 65536

static void fill_mask(unsigned long *mask, const int *nodes, int n)
{
	memset(mask, 0, sizeof(unsigned long) * MASK_WORDS);
	for (int i = 0; i < n; i++)
		if (nodes[i] >= 0 && nodes[i] < NMEM_MAX_NODE)
			mask[nodes[i] / (8 * sizeof(unsigned long))] |=
				1ul << (nodes[i] % (8 * sizeof(unsigned long)));
}

static int kernel_mode(enum nmem_policy p)
{
	switch (p) {
	case NMEM_BIND:
		return MPOL_BIND;
	case NMEM_PREFERRED:
		/* with several nodes the kernel takes the lowest, as the
		 * article says */
		return MPOL_PREFERRED;
	case NMEM_PREFERRED_MANY:
		return MPOL_PREFERRED_MANY;
	case NMEM_INTERLEAVE:
		return MPOL_INTERLEAVE;
	case NMEM_LOCAL:
		return MPOL_LOCAL;
	case NMEM_DEFAULT:
		break;
	}
	return MPOL_DEFAULT;
}

static int takes_nodes(enum nmem_policy p)
{
	return p == NMEM_BIND || p == NMEM_PREFERRED || p == NMEM_INTERLEAVE ||
	       p == NMEM_PREFERRED_MANY;
}

/* The call a policy is applied with, for messages. */
static void describe_policy(const struct nmem_buf *b, const char *call,
			    char *buf, size_t len)
{
	static const char *const modes[] = {
		"MPOL_DEFAULT",	   "MPOL_PREFERRED", "MPOL_BIND",
		"MPOL_INTERLEAVE", "MPOL_LOCAL",     "MPOL_PREFERRED_MANY"};
	int32_t v[TOPO_MAX_NODES];
	char nodes[128] = "";

	for (int i = 0; i < b->nnodes; i++)
		v[i] = b->nodes[i];
	format_int_list(v, b->nnodes, nodes, sizeof(nodes));
	snprintf(buf, len, "%s(%s%s%s)", call, modes[kernel_mode(b->policy)],
		 b->nnodes ? ", nodes " : "", nodes);
}

int nmem_alloc(const struct nmem_spec *s, const struct topo *t,
	       struct nmem_buf *b, struct errinfo *err)
{
	unsigned long mask[MASK_WORDS];
	long page = sysconf(_SC_PAGESIZE);
	char what[160];
	int rc;

	memset(b, 0, sizeof(*b));
	b->page = page > 0 ? (size_t)page : 4096;
	b->len = (s->len + b->page - 1) / b->page * b->page;
	b->npages = b->len / b->page;
	b->policy = s->policy;
	b->scope = s->scope;
	if (b->len == 0) {
		errinfo_set(err, NULL, "cannot allocate an empty buffer");
		return -EINVAL;
	}
	if (takes_nodes(s->policy)) {
		for (int i = 0; i < s->nnodes && b->nnodes < TOPO_MAX_NODES;
		     i++)
			b->nodes[b->nnodes++] = s->nodes[i];
		for (int i = 0; !s->nnodes && t && i < t->nnodes; i++)
			if (t->node[i].mem_total > 0 || t->nnodes == 1)
				b->nodes[b->nnodes++] = t->node[i].os;
		if (!b->nnodes) {
			errinfo_set(err, NULL, "policy %s needs a node set",
				    nmem_policy_names[s->policy]);
			return -EINVAL;
		}
	}
	b->base = mmap(NULL, b->len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->base == MAP_FAILED) {
		rc = -errno;
		b->base = NULL;
		errinfo_set(err, NULL, "mmap of %zu bytes failed: %s", b->len,
			    strerror(-rc));
		return rc;
	}
	/* advice only: a kernel without THP ignores it, and so do we */
	if (s->thp < 0)
		madvise(b->base, b->len, MADV_NOHUGEPAGE);
	else if (s->thp > 0)
		madvise(b->base, b->len, MADV_HUGEPAGE);
	if (s->scope != NMEM_VMA || s->policy == NMEM_DEFAULT)
		return 0;
	fill_mask(mask, b->nodes, b->nnodes);
	if (mbind(b->base, b->len, kernel_mode(b->policy),
		  b->nnodes ? mask : NULL, b->nnodes ? MASK_MAXNODE : 0, 0)) {
		rc = -errno;
		describe_policy(b, "mbind", what, sizeof(what));
		errinfo_set(
			err, NULL, "%s failed: %s%s", what, strerror(-rc),
			rc == -EINVAL && b->policy == NMEM_PREFERRED_MANY
				? " (MPOL_PREFERRED_MANY needs Linux 5.15 or later)"
				: "");
		nmem_free(b);
		return rc;
	}
	return 0;
}

void nmem_free(struct nmem_buf *b)
{
	if (b->base)
		munmap(b->base, b->len);
	b->base = NULL;
}

int nmem_task_apply(const struct nmem_buf *b)
{
	unsigned long mask[MASK_WORDS];

	fill_mask(mask, b->nodes, b->nnodes);
	if (set_mempolicy(kernel_mode(b->policy), b->nnodes ? mask : NULL,
			  b->nnodes ? MASK_MAXNODE : 0))
		return -errno;
	return 0;
}

/* move_pages over the buffer in chunks; dest NULL queries. */
static int move_chunks(const struct nmem_buf *b, const int *dest, int *status,
		       int flags, double *seconds)
{
	size_t chunk = b->npages < QUERY_CHUNK ? b->npages : QUERY_CHUNK;
	void **pages = malloc(sizeof(void *) * (chunk ? chunk : 1));
	double spent = 0;
	int rc = 0;

	if (!pages)
		return -ENOMEM;
	for (size_t i = 0; i < b->npages && !rc; i += chunk) {
		size_t n = b->npages - i < chunk ? b->npages - i : chunk;
		for (size_t k = 0; k < n; k++)
			pages[k] = b->base + (i + k) * b->page;
		double t0 = clock_now();
		if (move_pages(0, n, pages, dest ? dest + i : NULL, status + i,
			       flags) < 0)
			rc = -errno;
		spent += clock_now() - t0;
	}
	free(pages);
	if (seconds)
		*seconds = spent;
	return rc;
}

int nmem_where(const struct nmem_buf *b, int *status)
{
	return move_chunks(b, NULL, status, 0, NULL);
}

int nmem_sample_check(const struct nmem_buf *b, const int *status, int nsample,
		      int *checked)
{
	int agree = 0;

	*checked = 0;
	if (nsample < 1 || b->npages == 0)
		return 0;
	for (int k = 0; k < nsample; k++) {
		size_t i = (size_t)k * b->npages / (size_t)nsample;
		int node = -1;
		if (status[i] < 0)
			continue; /* asking would fault the page in */
		if (get_mempolicy(&node, NULL, 0, b->base + i * b->page,
				  MPOL_F_NODE | MPOL_F_ADDR))
			return -errno;
		(*checked)++;
		agree += node == status[i];
	}
	return agree;
}

static int in_set(const int *set, int n, int v)
{
	for (int i = 0; i < n; i++)
		if (set[i] == v)
			return 1;
	return 0;
}

static void count_moves(const struct nmem_buf *b, const int *before,
			const int *after, const int *target, int n,
			const int *dest, struct nmem_migration *m)
{
	int errs[256] = {0}, best = 0;

	for (size_t i = 0; i < b->npages; i++) {
		int want = dest ? dest[i] : -1;
		int was =
			dest ? before[i] == want : in_set(target, n, before[i]);
		int is = dest ? after[i] == want : in_set(target, n, after[i]);
		if (was)
			m->stayed++;
		else if (is)
			m->moved++;
		else
			m->failed++;
		if (after[i] < 0 && -after[i] < 256)
			errs[-after[i]]++;
	}
	for (int e = 1; e < 256; e++)
		if (errs[e] > best) {
			best = errs[e];
			m->first_errno = e;
		}
}

/* A migration's start: m and msg emptied, and two lists (a node per page)
 * for where the pages are before and after it. Returns 0, or -ENOMEM said
 * in msg. */
static int page_lists(const struct nmem_buf *b, int **before, int **after,
		      struct nmem_migration *m, struct errinfo *err)
{
	*before = malloc(sizeof(int) * b->npages);
	*after = malloc(sizeof(int) * b->npages);
	memset(m, 0, sizeof(*m));
	errinfo_clear(err);
	if (*before && *after)
		return 0;
	free(*before);
	free(*after);
	errinfo_set(err, NULL, "out of memory for the page lists");
	return -ENOMEM;
}

int nmem_migrate_mbind(struct nmem_buf *b, enum nmem_move how,
		       const int *target, int n, struct nmem_migration *m,
		       struct errinfo *err)
{
	static const char *const names[] = {"MPOL_MF_MOVE",
					    "MPOL_MF_MOVE|MPOL_MF_STRICT",
					    "MPOL_MF_MOVE_ALL"};
	unsigned long mask[MASK_WORDS];
	unsigned flags = how == NMEM_MOVE_ALL ? MPOL_MF_MOVE_ALL
			 : how == NMEM_MOVE_MBIND_STRICT
				 ? MPOL_MF_MOVE | MPOL_MF_STRICT
				 : MPOL_MF_MOVE;
	int *before, *after;
	int rc, qrc;

	if (page_lists(b, &before, &after, m, err))
		return -ENOMEM;
	qrc = nmem_where(b, before);
	fill_mask(mask, target, n);
	double t0 = clock_now();
	rc = mbind(b->base, b->len, MPOL_BIND, mask, MASK_MAXNODE, flags)
		     ? -errno
		     : 0;
	m->seconds = clock_now() - t0;
	if (!qrc)
		qrc = nmem_where(b, after);
	if (!qrc) {
		count_moves(b, before, after, target, n, NULL, m);
		m->gbps = m->seconds > 0 ? (double)m->moved * (double)b->page /
						   m->seconds / 1e9
					 : 0;
	}
	m->rc = rc;
	if (rc == -EPERM && how == NMEM_MOVE_ALL)
		errinfo_set(
			err, NULL,
			"mbind(MPOL_MF_MOVE_ALL) needs CAP_SYS_NICE, which this process lacks");
	else if (rc == -EIO)
		errinfo_set(
			err, NULL,
			"mbind(%s): %zu pages could not be moved, so the call failed (EIO)",
			names[how], m->failed);
	else if (rc)
		errinfo_set(err, NULL, "mbind(%s) failed: %s", names[how],
			    strerror(-rc));
	else if (qrc)
		errinfo_set(err, NULL,
			    "move_pages could not count the pages: %s",
			    strerror(-qrc));
	if (!rc) {
		b->policy = NMEM_BIND;
		b->nnodes = 0;
		for (int i = 0; i < n && i < TOPO_MAX_NODES; i++)
			b->nodes[b->nnodes++] = target[i];
	}
	free(before);
	free(after);
	return rc ? rc : qrc;
}

int nmem_migrate_pages(struct nmem_buf *b, const int *dest,
		       struct nmem_migration *m, struct errinfo *err)
{
	int *before, *after;
	int rc;

	if (page_lists(b, &before, &after, m, err))
		return -ENOMEM;
	rc = nmem_where(b, before);
	if (!rc) {
		rc = move_chunks(b, dest, after, MPOL_MF_MOVE, &m->seconds);
		m->rc = rc;
		if (rc)
			errinfo_set(err, NULL, "move_pages failed: %s",
				    strerror(-rc));
	} else {
		errinfo_set(err, NULL,
			    "move_pages could not query the pages: %s",
			    strerror(-rc));
	}
	if (!rc) {
		count_moves(b, before, after, NULL, 0, dest, m);
		m->gbps = m->seconds > 0 ? (double)m->moved * (double)b->page /
						   m->seconds / 1e9
					 : 0;
	}
	free(before);
	free(after);
	return rc;
}
