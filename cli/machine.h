/* machine.h - the machine a run is measured on, probed from /proc and /sys */
#ifndef NUMALAB_MACHINE_H
#define NUMALAB_MACHINE_H

#include <jansson.h>

#include "topo.h"

/* CPU model, topology summary, kernel, SMT, THP, governor, compiler... */
json_t *machine_json(const struct topo *t);

#endif
