/* Changing a device or sysctl: validate everything, journal, apply, read back. */
#ifndef ETHTUNE_DEVSET_H
#define ETHTUNE_DEVSET_H

#include <stdbool.h>
#include <stddef.h>

/* Apply "WHAT ARGS..." to dev in the current namespace, as `ethtune set DEV WHAT ARGS` does:
 *   coalesce|ring|channels KEY VAL...; feature NAME on|off...; priv-flag NAME on|off;
 *   mtu N; gso-max-size N; gso-max-segs N; gso-ipv4-max-size N; txqueuelen N.
 * Nothing is sent until every keyword and value is checked against what the device reports.
 * Old values are journaled first (temporary when journal_temp_begin() is active). After the
 * change values are read back; differences are reported through warn (may be NULL).
 * On error one line naming the problem goes to err; returns -errno. */
int devset_apply(const char *dev, int argc, char **argv, char *err, size_t errlen,
		 void (*warn)(const char *msg));

/* Some drivers change a parameter only while the interface is down (virtio_net's tx-frames
 * switches napi_tx). When allowed, a change refused with EBUSY on an up interface is retried
 * with the interface taken down and brought back (journaled, so restore brings it up). Restore
 * itself always may: it puts back what such a change altered. Off by default. */
void devset_allow_link_down(bool allow);

/* Set a sysctl of the current namespace ("net.ipv4.tcp_limit_output_bytes"), journaled. */
int sysctl_set(const char *name, const char *val, char *err, size_t errlen);
int sysctl_get(const char *name, char *buf, size_t len);

/* The same without journaling: used by restore to put old values back. */
int devset_apply_raw(const char *dev, int argc, char **argv, char *err, size_t errlen);
int devset_sysctl_raw(const char *name, const char *val, char *err, size_t errlen);
#endif
