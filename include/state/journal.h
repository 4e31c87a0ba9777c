/* Journal of device and sysctl changes: old values recorded before a change, restored later. */
#ifndef ETHTUNE_JOURNAL_H
#define ETHTUNE_JOURNAL_H

#include <stdbool.h>

/* One journaled value. object: coalesce, ring, channels, feature, priv-flag, link, sysctl.
 * For sysctl entries dev is "" and key is the sysctl name (net.ipv4.tcp_limit_output_bytes). */
struct journal_entry {
	char netns[64]; /* "" = the namespace ethtune was started in */
	char dev[32];
	char object[16];
	char key[96];
	char old[160]; /* value as the CLI accepts it */
	bool temp;     /* undone when the owning process ends */
	int pid;       /* owner of a temp entry */
	long long time;
};

/* Journal file: $ETHTUNE_STATE_DIR/journal (default /run/ethtune/journal). */
const char *journal_path(void);

/* Record old values before a change; durable (fsync) before this returns. */
int journal_record(const struct journal_entry *e);

/* From now on this process's changes are temporary: undone at exit, SIGINT, SIGTERM, SIGHUP,
 * and by the next ethtune run if this process is killed. */
int journal_temp_begin(void);
/* Undo this process's temporary changes now. */
int journal_temp_end(void);
/* In a helper child (e.g. one that entered the peer's namespace): record temporary entries as
 * owned by owner, which restores them; the child itself restores nothing at exit. */
int journal_temp_adopt(int owner);

/* Restore entries for dev (NULL: all devices and sysctls). only_orphans: just temp entries
 * whose owner is gone. Entries whose device is missing are kept and reported. */
int journal_restore(const char *dev, bool only_orphans, int *restored, int *kept);

/* The same, only for entries recorded in namespace netns ("" = the initial one). */
int journal_restore_ns(const char *netns, const char *dev, int *restored, int *kept);

/* Several changes that must take effect together: mark the journal, and on failure put back
 * everything recorded since the mark, so that nothing is left half-applied. */
int journal_txn_begin(int *mark);
int journal_txn_rollback(int mark);
/* Forget what was recorded since the mark, without applying it (the change did not happen). */
int journal_txn_drop(int mark);

/* Read all entries (caller frees *out). */
int journal_load(struct journal_entry **out, int *n);

#endif
