/* ethtune txlat's engine: tracing one device's xmit-to-free latency and printing the report. */
#ifndef ETHTUNE_TRACE_H
#define ETHTUNE_TRACE_H

#include <stdbool.h>

/* Is name one of the BPF attach backends (btf, raw, tracepoint)? */
bool txlat_backend_known(const char *name);
/*
 * Enter --netns, trace dev for duration_s seconds (0: while the load runs) with backend (NULL:
 * the first that loads) beside load_argv (NULL: none; argv of a command run meanwhile), then
 * print the report. 0, or -errno after one line saying why.
 */
int txlat_main(const char *dev, double duration_s, const char *backend, char **load_argv);

#endif
