/* Sysctls: read and set, journaled, in this namespace or (kernel-wide ones) the initial one. */
#ifndef ETHTUNE_SYSCTL_H
#define ETHTUNE_SYSCTL_H

#include <stddef.h>

/* A sysctl of the current namespace by its dotted name ("net.ipv4.tcp_congestion_control"),
 * as one line without its newline. 0 or -errno. */
int sysctl_get(const char *name, char *buf, size_t len);
/* Set a network sysctl of the current namespace ("net.ipv4.tcp_limit_output_bytes"), its old
 * value journaled first. 0, or -errno with one line in err. */
int sysctl_set(const char *name, const char *val, char *err, size_t errlen);
/* A kernel-wide sysctl (net.core.high_order_alloc_disable), which the kernel shows in the
 * initial namespace only: read and set there (a child enters it), journaled as that
 * namespace's, so that restore puts it back from anywhere. */
int sysctl_get_kernel(const char *name, char *buf, size_t len);
int sysctl_set_kernel(const char *name, const char *val, char *err, size_t errlen);
/* Write a sysctl of the current namespace without journaling (restore puts old values back). */
int devset_sysctl_raw(const char *name, const char *val, char *err, size_t errlen);

#endif
