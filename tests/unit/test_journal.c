/* Journal and undo: durable records, oldest value wins, newest group first, orphans, signals. */
// LDFLAGS: -Wl,--wrap=devset_set -Wl,--wrap=devset_sysctl_raw
#include <errno.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "state/devset.h"
#include "state/sysctl.h"
#include "util/ethtune.h"
#include "state/journal.h"
#include "state/undo.h"

/* Every restore request is recorded here instead of touching a device. */
static char calls[16][256];
static int ncalls;
static const char *missing_dev;

/* Restore goes through the structured API, never journaling: "DEV OBJECT KEY VAL...". */
int __wrap_devset_set(const char *dev, const char *object, const struct devset_kv *kv,
		      unsigned int n, unsigned int flags, char *err, size_t errlen,
		      void (*warn)(const char *))
{
	size_t off;
	unsigned int i;

	assert_false(flags & DEVSET_JOURNAL);
	if (missing_dev && !strcmp(dev, missing_dev)) {
		snprintf(err, errlen, "no such device '%s'", dev);
		return -ENODEV;
	}
	off = snprintf(calls[ncalls], sizeof(calls[0]), "%s %s", dev, object);
	for (i = 0; i < n; i++)
		off += snprintf(calls[ncalls] + off, sizeof(calls[0]) - off, " %s %s", kv[i].key,
				kv[i].val);
	ncalls++;
	return 0;
}

int __wrap_devset_sysctl_raw(const char *name, const char *val, char *err, size_t errlen)
{
	snprintf(calls[ncalls++], sizeof(calls[0]), "sysctl %s=%s", name, val);
	return 0;
}

static char dir[] = "/tmp/ethtune-journal-XXXXXX";
static const struct undo_sel all = { .which = UNDO_MATCH };

static int setup(void **state)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/journal", dir);
	unlink(path);
	ncalls = 0;
	missing_dev = NULL;
	return 0;
}

static void rec(const char *dev, const char *obj, const char *key, const char *old)
{
	struct journal_entry e = {};

	snprintf(e.dev, sizeof(e.dev), "%s", dev);
	snprintf(e.object, sizeof(e.object), "%s", obj);
	snprintf(e.key, sizeof(e.key), "%s", key);
	snprintf(e.old, sizeof(e.old), "%s", old);
	assert_int_equal(journal_record(&e), 0);
}

static void test_record_load(void **state)
{
	struct journal_entry *v;
	int n;

	rec("veth0", "coalesce", "tx-usecs", "16");
	rec("veth0", "link", "mtu", "1500");
	assert_int_equal(journal_load(&v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].key, "tx-usecs");
	assert_string_equal(v[0].old, "16");
	assert_false(v[0].temp);
	assert_string_equal(v[1].object, "link");
	free(v);
}

static void test_oldest_value_wins(void **state)
{
	int restored, kept;

	/* Two sets of tx-usecs: the user's value is the first old value. */
	rec("veth0", "coalesce", "tx-usecs", "16");
	rec("veth0", "coalesce", "tx-frames", "32");
	rec("veth0", "coalesce", "tx-usecs", "128");
	rec("veth0", "link", "mtu", "1500");
	assert_int_equal(undo_restore(&all, &restored, &kept), 0);
	assert_int_equal(restored, 4);
	assert_int_equal(kept, 0);
	assert_int_equal(ncalls, 2);
	/* the newest group (link) goes back first */
	assert_string_equal(calls[0], "veth0 link mtu 1500");
	assert_string_equal(calls[1], "veth0 coalesce tx-usecs 16 tx-frames 32");
	/* the journal is empty afterwards */
	ncalls = 0;
	assert_int_equal(undo_restore(&all, &restored, &kept), 0);
	assert_int_equal(restored, 0);
	assert_int_equal(ncalls, 0);
}

static void test_dev_filter_and_missing(void **state)
{
	struct journal_entry *v;
	int restored, kept, n;

	rec("gone0", "link", "mtu", "1500");
	rec("veth1", "feature", "tx-tcp-segmentation", "on");
	missing_dev = "gone0";
	assert_int_equal(undo_restore(&(struct undo_sel){ .which = UNDO_MATCH, .dev = "veth1" },
				      &restored, &kept),
			 0);
	assert_int_equal(restored, 1);
	assert_string_equal(calls[0], "veth1 feature tx-tcp-segmentation on");
	/* a device that is gone keeps its entries: nothing the user had is forgotten */
	assert_int_equal(undo_restore(&all, &restored, &kept), 0);
	assert_int_equal(kept, 1);
	assert_int_equal(journal_load(&v, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].dev, "gone0");
	free(v);
}

static void test_sysctl(void **state)
{
	int restored, kept;

	rec("", "sysctl", "net.ipv4.tcp_limit_output_bytes", "4194304");
	rec("", "sysctl", "net.ipv4.tcp_limit_output_bytes", "65536");
	assert_int_equal(undo_restore(&all, &restored, &kept), 0);
	assert_int_equal(ncalls, 1);
	assert_string_equal(calls[0], "sysctl net.ipv4.tcp_limit_output_bytes=4194304");
}

static void test_orphaned_temp(void **state)
{
	struct journal_entry *v;
	int restored, kept, n, st;
	pid_t pid;

	/* A temporary change by a process that died (kill -9) is undone by the next run. */
	pid = fork();
	if (pid == 0) {
		undo_temp_begin();
		rec("veth2", "coalesce", "tx-usecs", "8");
		_exit(0); /* _exit: no atexit restore, like SIGKILL */
	}
	waitpid(pid, &st, 0);
	rec("veth3", "link", "mtu", "9000"); /* a user's persistent set */
	assert_int_equal(journal_load(&v, &n), 0);
	assert_int_equal(n, 2);
	assert_true(v[0].temp);
	assert_int_equal(v[0].pid, pid);
	free(v);
	assert_int_equal(
		undo_restore(&(struct undo_sel){ .which = UNDO_ORPHANS }, &restored, &kept), 0);
	assert_int_equal(restored, 1);
	assert_string_equal(calls[0], "veth2 coalesce tx-usecs 8");
	assert_int_equal(journal_load(&v, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].dev, "veth3");
	free(v);
}

static void test_temp_end_restores_own(void **state)
{
	struct journal_entry *v;
	int n;

	rec("veth4", "link", "mtu", "1500");
	undo_temp_begin();
	rec("veth5", "coalesce", "tx-usecs", "0");
	assert_true(journal_temp_active());
	assert_int_equal(undo_temp_end(), 0);
	assert_int_equal(ncalls, 1);
	assert_string_equal(calls[0], "veth5 coalesce tx-usecs 0");
	assert_int_equal(journal_load(&v, &n), 0);
	assert_int_equal(n, 1); /* the persistent entry stays */
	free(v);
}

static void test_torn_line(void **state)
{
	struct journal_entry *v;
	char path[300];
	FILE *f;
	int n;

	rec("veth6", "link", "mtu", "1500");
	snprintf(path, sizeof(path), "%s/journal", dir);
	f = fopen(path, "a");
	fputs("{\"netns\":\"\",\"dev\":\"veth6\",\"obj", f); /* crash mid-write */
	fclose(f);
	assert_int_equal(journal_load(&v, &n), 0);
	assert_int_equal(n, 1);
	free(v);
	/* the next record cuts the torn line off instead of gluing itself to it */
	rec("veth6", "coalesce", "tx-usecs", "16");
	assert_int_equal(journal_load(&v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[1].key, "tx-usecs");
	free(v);
}

static void test_corrupt_line(void **state)
{
	struct journal_entry e = {}, *v;
	char path[300];
	FILE *f;
	int n;

	rec("veth7", "link", "mtu", "1500");
	snprintf(path, sizeof(path), "%s/journal", dir);
	f = fopen(path, "a");
	fputs("not json\n", f); /* a whole line, not a torn one */
	fclose(f);
	snprintf(e.dev, sizeof(e.dev), "veth7");
	snprintf(e.object, sizeof(e.object), "link");
	snprintf(e.key, sizeof(e.key), "txqueuelen");
	snprintf(e.old, sizeof(e.old), "1000");
	/* neither read nor added to: a restore from it could miss values */
	assert_int_equal(journal_load(&v, &n), -EBADMSG);
	assert_non_null(strstr(journal_strerror(-EBADMSG), "line 2 is corrupt"));
	assert_int_equal(journal_record(&e), -EBADMSG);
	assert_int_equal(undo_restore(&(struct undo_sel){ .which = UNDO_MATCH }, NULL, NULL),
			 -EBADMSG);
	assert_int_equal(ncalls, 0);
}

static void test_netns_filter(void **state)
{
	struct journal_entry e = {}, *v;
	int restored, kept, n;

	snprintf(e.netns, sizeof(e.netns), "other-ns");
	snprintf(e.dev, sizeof(e.dev), "veth7");
	snprintf(e.object, sizeof(e.object), "link");
	snprintf(e.key, sizeof(e.key), "mtu");
	snprintf(e.old, sizeof(e.old), "1500");
	assert_int_equal(journal_record(&e), 0);
	rec("veth7", "link", "txqueuelen", "1000");
	/* only entries of the initial namespace: the other one is not even entered */
	assert_int_equal(undo_restore(&(struct undo_sel){ .which = UNDO_MATCH, .netns = "" },
				      &restored, &kept),
			 0);
	assert_int_equal(restored, 1);
	assert_int_equal(kept, 0);
	assert_int_equal(ncalls, 1);
	assert_string_equal(calls[0], "veth7 link txqueuelen 1000");
	assert_int_equal(journal_load(&v, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].netns, "other-ns");
	free(v);
}

static void test_txn_rollback(void **state)
{
	struct journal_entry *v;
	int mark, n;

	rec("veth8", "link", "mtu", "1500");
	assert_int_equal(journal_txn_begin(&mark), 0);
	assert_int_equal(mark, 1);
	rec("veth8", "channels", "tx", "1");
	rec("", "sysctl", "net.ipv4.tcp_autocorking", "1");
	assert_int_equal(undo_txn_rollback(mark), 0);
	assert_int_equal(ncalls, 2);
	assert_string_equal(calls[0], "sysctl net.ipv4.tcp_autocorking=1");
	assert_string_equal(calls[1], "veth8 channels tx 1");
	assert_int_equal(journal_load(&v, &n), 0);
	assert_int_equal(n, 1); /* what came before the mark stays */
	assert_string_equal(v[0].key, "mtu");
	free(v);
}

/* A line as earlier versions wrote it is still read and restored. */
static void test_old_journal_line(void **state)
{
	char path[300];
	int restored, kept;
	FILE *f;

	snprintf(path, sizeof(path), "%s/journal", dir);
	f = fopen(path, "w");
	fputs("{\"netns\":\"\",\"dev\":\"veth9\",\"object\":\"ring\",\"key\":\"tx\","
	      "\"old\":\"256\",\"temp\":false,\"pid\":0,\"start\":0,\"time\":1700000000}\n",
	      f);
	fclose(f);
	assert_int_equal(undo_restore(&all, &restored, &kept), 0);
	assert_int_equal(restored, 1);
	assert_string_equal(calls[0], "veth9 ring tx 256");
}

/* SIGTERM during a temporary change: the handler only notes it; the undo runs when the code
 * gets to it, and then the process dies of the signal. */
static void test_stop_signal_deferred(void **state)
{
	struct journal_entry *v;
	int n, st;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		undo_temp_begin();
		rec("veth10", "coalesce", "tx-usecs", "8");
		raise(SIGTERM);
		if (et_stop_signal() != SIGTERM)
			_exit(4);
		/* nothing was restored inside the handler */
		if (journal_load(&v, &n) || n != 1)
			_exit(5);
		free(v);
		undo_temp_end();
		_exit(6); /* not reached: undo_temp_end() re-raises */
	}
	waitpid(pid, &st, 0);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGTERM);
	assert_int_equal(journal_load(&v, &n), 0);
	assert_int_equal(n, 0);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_record_load, setup),
		cmocka_unit_test_setup(test_oldest_value_wins, setup),
		cmocka_unit_test_setup(test_dev_filter_and_missing, setup),
		cmocka_unit_test_setup(test_sysctl, setup),
		cmocka_unit_test_setup(test_orphaned_temp, setup),
		cmocka_unit_test_setup(test_temp_end_restores_own, setup),
		cmocka_unit_test_setup(test_torn_line, setup),
		cmocka_unit_test_setup(test_corrupt_line, setup),
		cmocka_unit_test_setup(test_netns_filter, setup),
		cmocka_unit_test_setup(test_txn_rollback, setup),
		cmocka_unit_test_setup(test_old_journal_line, setup),
		cmocka_unit_test_setup(test_stop_signal_deferred, setup),
	};
	int ret;

	if (!mkdtemp(dir))
		return 1;
	setenv("ETHTUNE_STATE_DIR", dir, 1);
	ret = cmocka_run_group_tests_name("journal", tests, NULL, NULL);
	setup(NULL); /* the state directory goes with the test */
	rmdir(dir);
	return ret;
}
