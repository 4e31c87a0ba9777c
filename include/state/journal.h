/* Journal: a durable store of old values (structured changes), knowing nothing of devices. */
#ifndef ETHTUNE_JOURNAL_H
#define ETHTUNE_JOURNAL_H

#include <stdbool.h>

/* One journaled change: where (netns, dev), what (object, key) and the value it had before.
 * object: coalesce, ring, channels, feature, priv-flag, link, napi, bql, sysctl. For sysctl
 * entries dev is "" and key is the sysctl name (net.ipv4.tcp_limit_output_bytes); napi keys are
 * ID/KEY (one NAPI, napi-set) or KEY (the device's sysfs file), bql keys tx-N/KEY. The undo layer
 * (state/undo.h) turns entries back into device changes. */
struct journal_entry {
	char netns[64]; /* "" = the namespace ethtune was started in */
	char dev[32];
	char object[16];
	char key[96];
	char old[160];	 /* value as `ethtune set` accepts it */
	bool temp;	 /* undone when the owning process ends */
	int pid;	 /* owner of a temp entry */
	long long start; /* the owner's start time (clock ticks since boot): tells a reused pid */
	long long time;
};

/* Journal file: $ETHTUNE_STATE_DIR/journal (default /run/ethtune/journal). */
const char *journal_path(void);

/* Record old values before a change; durable (fsync) before this returns. */
int journal_record(const struct journal_entry *e);

/* Recording mode: with temp on, entries are recorded as temporary, owned by owner (0: this
 * process). A helper child (one that entered the peer's namespace) records for its parent. */
void journal_set_temp(bool temp, int owner);
bool journal_temp_active(void);
/* In a helper child: record temporary entries as owned by owner, which restores them. */
int journal_temp_adopt(int owner);

/* True while the process that owns temporary entry e still runs (same pid, same start). */
bool journal_owner_alive(const struct journal_entry *e);

/* Read all entries (caller frees *out). */
int journal_load(struct journal_entry **out, int *n);
/* A load or record fails with -EBADMSG on a journal line that does not parse (other than a
 * torn last line, which is skipped): journal_strerror() names the line, for any -errno. */
const char *journal_strerror(int err);

/* A locked view of the whole journal, for a restore: open, work through the entries, then
 * close, which removes the entries marked done (if any) and unlocks. Nothing else may write the
 * journal from this process while a view is open. */
struct journal_view {
	int fd;
	int n;
	struct journal_entry *e;
};
int journal_open(struct journal_view *v);
int journal_close(struct journal_view *v, const bool *done);

/* Several changes that must take effect together: mark the journal (the number of entries);
 * the undo layer can put back everything recorded since the mark (undo_txn_rollback). */
int journal_txn_begin(int *mark);
/* Forget what was recorded since the mark, without applying it (the change did not happen). */
int journal_txn_drop(int mark);

#endif
