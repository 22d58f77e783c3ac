/* sink_table.h - a sink that prints results as readable lines on a terminal */
#ifndef NUMALAB_SINK_TABLE_H
#define NUMALAB_SINK_TABLE_H

#include <stdio.h>
#include <unistd.h>

#include "sink.h"

static inline int isatty_stderr(void)
{
	return isatty(2);
}

void sink_table_init(struct sink *s, FILE *f);

#endif
