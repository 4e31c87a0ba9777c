/* Undo: journaled old values back through devset (restore, temporary changes, transactions). */
#ifndef ETHTUNE_UNDO_H
#define ETHTUNE_UNDO_H

#include <stdbool.h>

/* Which journal entries a restore takes. */
enum undo_which {
	UNDO_MATCH,	/* entries of dev and netns (NULL: any) */
	UNDO_ORPHANS,	/* temporary entries whose owner is gone (killed) */
	UNDO_OWN_TEMPS, /* this process's temporary entries */
	UNDO_SINCE,	/* entries recorded since a journal_txn_begin() mark */
};

struct undo_sel {
	enum undo_which which;
	const char *dev;   /* UNDO_MATCH: NULL for all devices and sysctls */
	const char *netns; /* UNDO_MATCH: only entries recorded there ("" the initial one) */
	int mark;	   /* UNDO_SINCE */
	bool forget;	   /* also drop the entries of devices and namespaces that are gone */
};

/* Put the selected entries back: per device and object the oldest value (what the user had),
 * newest group first; entries of another namespace in a child that enters it. Restored entries
 * leave the journal; those whose device or namespace is missing are kept and reported (with
 * sel->forget, dropped and named on stderr: the device is gone for good). restored and kept
 * (may be NULL) count entries. 0, -EIO when some could not be restored, or -errno. */
int undo_restore(const struct undo_sel *sel, int *restored, int *kept);

/* From now on this process's changes are temporary: undone at exit, after SIGINT, SIGTERM or
 * SIGHUP (the handler only records the signal, see et_stop_signal(); the undo runs where the
 * command notices it, then the process dies of the signal), and by the next ethtune run if this
 * process is killed. */
int undo_temp_begin(void);
/* Undo this process's temporary changes now (-EIO when some are kept: their device is gone);
 * when a stop signal is pending, then die of it. */
int undo_temp_end(void);

/* The command dispatcher, after a command returns: temporary changes left are undone, and a
 * pending stop signal ends the process with it (exit status 128 + signal). */
void undo_command_done(void);

/* Put back everything recorded since mark (journal_txn_begin), so that nothing is left
 * half-applied. 0 or -errno (-EIO when some entry could not be restored). */
int undo_txn_rollback(int mark);

#endif
