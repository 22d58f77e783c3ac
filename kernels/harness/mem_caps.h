/* mem_caps.h - what the kernel, and the container around it, allows of the NUMA memory calls */
#ifndef NUMALAB_MEM_CAPS_H
#define NUMALAB_MEM_CAPS_H

/* Node numbers the helpers accept: the masks they build hold this many bits. */
#define NMEM_MAX_NODE 1024

/* What this kernel, and the container around it, allows. Probed once. */
struct mem_caps {
	int policy;	/* get_mempolicy, set_mempolicy and mbind answer */
	int move_pages; /* move_pages answers queries */
	int sys_nice;  /* CAP_SYS_NICE is effective: MPOL_MF_MOVE_ALL is allowed
			*/
	int balancing; /* automatic NUMA balancing: 1 on, 0 off, -1 unknown */
	int preferred_many; /* mbind takes MPOL_PREFERRED_MANY (Linux 5.15 and
			       later) */
	char why[200]; /* when policy or move_pages is 0: the call that failed,
			  and why */
	/* each of get_mempolicy, set_mempolicy, mbind and move_pages that the
	 * system refuses (EPERM: a seccomp filter; ENOSYS: no NUMA in the
	 * kernel), tried one by one: "get_mempolicy, move_pages", or "" */
	char refused[80];
};

/* The probe's result; the first call probes, later calls return the same. Never
 * fails. */
const struct mem_caps *mem_caps(void);

#endif
