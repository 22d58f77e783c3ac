/* mem_caps.c - what the kernel, and the container around it, allows of the NUMA memory calls */
#define _GNU_SOURCE
#include "mem_caps.h"

#include <errno.h>
#include <numaif.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MASK_WORDS (NMEM_MAX_NODE / (8 * sizeof(unsigned long)))
/* the kernel reads maxnode - 1 bits: pass one more than the mask holds */
#define MASK_MAXNODE (NMEM_MAX_NODE + 1)

static struct mem_caps caps;
static pthread_once_t caps_once = PTHREAD_ONCE_INIT;

static int cap_sys_nice(void)
{
	char line[256];
	unsigned long long eff = 0;
	int found = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			found = 1;
			break;
		}
	fclose(f);
	/* CAP_SYS_NICE is capability 23 */
	return found && (eff >> 23) & 1;
}

static int read_balancing(void)
{
	FILE *f = fopen("/proc/sys/kernel/numa_balancing", "r");
	int v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v > 0 ? 1 : v;
}

static void refused_add(const char *call, int err)
{
	size_t n = strlen(caps.refused);

	if (err != EPERM && err != ENOSYS && err != EACCES)
		return;
	snprintf(caps.refused + n, sizeof(caps.refused) - n, "%s%s",
		 n ? ", " : "", call);
}

/* Every call tried whatever the others answered, for the list of those refused.
 */
static void probe_each(void *p, unsigned long len)
{
	unsigned long mask[MASK_WORDS];
	int mode = 0, status = -1;

	memset(mask, 0, sizeof(mask));
	if (get_mempolicy(&mode, mask, MASK_MAXNODE, NULL, 0)) {
		refused_add("get_mempolicy", errno);
		mode = MPOL_DEFAULT;
	}
	/* setting the policy we already have changes nothing */
	if (set_mempolicy(mode, mode == MPOL_DEFAULT ? NULL : mask,
			  mode == MPOL_DEFAULT ? 0 : MASK_MAXNODE))
		refused_add("set_mempolicy", errno);
	if (mbind(p, len, MPOL_DEFAULT, NULL, 0, 0))
		refused_add("mbind", errno);
	*(volatile char *)p = 1;
	if (move_pages(0, 1, &p, NULL, &status, 0) < 0)
		refused_add("move_pages", errno);
}

/*
 * Each call on its own: a seccomp filter (containers) or a kernel built
 * without NUMA can refuse one and allow another.
 */
static void probe(void)
{
	unsigned long mask[MASK_WORDS];
	long page = sysconf(_SC_PAGESIZE);
	int mode = 0;
	void *p;

	caps.sys_nice = cap_sys_nice();
	caps.balancing = read_balancing();
	p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		probe_each(p, (unsigned long)page);
		munmap(p, (size_t)page);
	}
	memset(mask, 0, sizeof(mask));
	if (get_mempolicy(&mode, mask, MASK_MAXNODE, NULL, 0)) {
		snprintf(caps.why, sizeof(caps.why), "get_mempolicy failed: %s",
			 strerror(errno));
		return;
	}
	/* setting the policy we already have changes nothing */
	if (set_mempolicy(mode, mode == MPOL_DEFAULT ? NULL : mask,
			  mode == MPOL_DEFAULT ? 0 : MASK_MAXNODE)) {
		snprintf(caps.why, sizeof(caps.why), "set_mempolicy failed: %s",
			 strerror(errno));
		return;
	}
	p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		snprintf(caps.why, sizeof(caps.why), "mmap failed: %s",
			 strerror(errno));
		return;
	}
	if (mbind(p, (unsigned long)page, MPOL_DEFAULT, NULL, 0, 0)) {
		snprintf(caps.why, sizeof(caps.why), "mbind failed: %s",
			 strerror(errno));
		munmap(p, (size_t)page);
		return;
	}
	caps.policy = 1;
	/* older kernels refuse the mode with EINVAL; the allowed nodes make a
	 * valid mask */
	if (!get_mempolicy(NULL, mask, MASK_MAXNODE, NULL,
			   MPOL_F_MEMS_ALLOWED) &&
	    !mbind(p, (unsigned long)page, MPOL_PREFERRED_MANY, mask,
		   MASK_MAXNODE, 0)) {
		caps.preferred_many = 1;
		mbind(p, (unsigned long)page, MPOL_DEFAULT, NULL, 0, 0);
	}
	*(volatile char *)p = 1;
	int status = -1;
	if (move_pages(0, 1, &p, NULL, &status, 0) < 0)
		snprintf(caps.why, sizeof(caps.why), "move_pages failed: %s",
			 strerror(errno));
	else
		caps.move_pages = 1;
	munmap(p, (size_t)page);
}

const struct mem_caps *mem_caps(void)
{
	pthread_once(&caps_once, probe);
	return &caps;
}
