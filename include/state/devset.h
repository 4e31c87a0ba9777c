/* Changing a device: validate everything, journal, apply, read back (sysctls: state/sysctl.h). */
#ifndef ETHTUNE_DEVSET_H
#define ETHTUNE_DEVSET_H

#include <stdbool.h>
#include <stddef.h>

struct et_param;

/* Apply "WHAT ARGS..." to dev in the current namespace, as `ethtune set DEV WHAT ARGS` does:
 *   coalesce|ring|channels KEY VAL...; feature NAME on|off...; priv-flag NAME on|off;
 *   napi [ID|all] KEY VAL... (napi-set keywords; per NAPI, or the per-device sysfs files on
 *   kernels without napi-set); bql [tx-N|all] KEY VAL... (stall-thrs, limit-min, limit-max);
 *   mtu N; gso-max-size N; gso-max-segs N; gso-ipv4-max-size N; txqueuelen N.
 * Nothing is sent until every keyword and value is checked against what the device reports.
 * Old values are journaled first (temporary when undo_temp_begin() is active). After the
 * change values are read back; differences are reported through warn (may be NULL).
 * On error one line naming the problem goes to err; returns -errno. */
int devset_apply(const char *dev, int argc, char **argv, char *err, size_t errlen,
		 void (*warn)(const char *msg));

/* Some drivers change a parameter only while the interface is down (virtio_net's tx-frames
 * switches napi_tx). When allowed, a change refused with EBUSY on an up interface is retried
 * with the interface taken down and brought back (journaled, so restore brings it up). Restore
 * itself always may: it puts back what such a change altered. Off by default. */
void devset_allow_link_down(bool allow);

/* The BQL keywords `ethtune set DEV bql` and profiles' [bql] take (stall-thrs, limit-min,
 * limit-max); NULL for any other. */
const struct et_param *devset_bql_param(const char *key);
/* The i-th of them, NULL past the last. */
const struct et_param *devset_bql_param_at(unsigned int i);

/* One parameter of one object, by name and value as `ethtune set` spells them. */
struct devset_kv {
	const char *key;
	const char *val;
};

enum {
	DEVSET_JOURNAL = 1 << 0, /* record old values first (otherwise: putting old values back) */
};

/* The structured form of devset_apply, without a command line to parse: set n parameters of
 * object ("coalesce", "ring", "channels", "feature", "priv-flag", "link", whose keys are mtu,
 * gso-max-size, gso-max-segs, gso-ipv4-max-size, txqueuelen and admin-state, "napi", whose keys
 * are KEY (every NAPI) or ID/KEY (one NAPI), or "bql", whose keys are KEY or tx-N/KEY) of dev in
 * the current namespace. Same checks, read-back and errors as devset_apply. Without DEVSET_JOURNAL
 * nothing is journaled and a change refused with EBUSY may bounce the link (restore). */
int devset_set(const char *dev, const char *object, const struct devset_kv *kv, unsigned int n,
	       unsigned int flags, char *err, size_t errlen, void (*warn)(const char *msg));

#endif
