/* node_mem.c - a buffer bound to one node, and how many of its pages are there */
#include "node_mem.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int node_mem_alloc(struct sink *s, const struct topo *t, int node, size_t len,
		   int thp, struct nmem_buf *b)
{
	int32_t n = node;
	struct nmem_spec spec = {.len = len,
				 .policy = mem_caps()->policy ? NMEM_BIND
							      : NMEM_DEFAULT,
				 .scope = NMEM_VMA,
				 .nodes = &n,
				 .nnodes = 1,
				 .thp = thp};
	struct errinfo err;
	int rc = nmem_alloc(&spec, t, b, &err);

	if (rc)
		sink_note(s, "warn", "cannot allocate %zu bytes on node %d: %s",
			  len, node, err.msg);
	return rc;
}

int node_mem_census(const struct nmem_buf *b, int node, struct page_census *c)
{
	int *st = malloc(sizeof(int) * (b->npages ? b->npages : 1));
	int rc;

	if (!st)
		return -ENOMEM;
	rc = nmem_where(b, st);
	if (!rc)
		page_census_of(st, b->npages, &node, 1, c);
	free(st);
	return rc;
}

int node_mem_count(const struct nmem_buf *b, int node, size_t *on, size_t *off)
{
	struct page_census c;
	int rc = node_mem_census(b, node, &c);

	*on = *off = 0;
	if (rc)
		return rc;
	*off = c.forbidden + c.absent + c.failed;
	*on = c.npages - *off;
	return 0;
}

int node_mem_census_check(struct errinfo *err, const char *field,
			  const char *what)
{
	const struct mem_caps *caps = mem_caps();

	if (!caps->policy)
		return errinfo_set(
			err, field,
			"this kernel or container does not allow NUMA memory policies (%s)",
			caps->why);
	if (!caps->move_pages)
		return errinfo_set(
			err, field,
			"move_pages is not allowed here, so where %s cannot be checked (%s)",
			what, caps->why);
	return 0;
}
