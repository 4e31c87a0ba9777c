/* Journal logic: durable records, oldest value wins, newest group first, orphans, missing devs. */
// LDFLAGS: -Wl,--wrap=devset_apply_raw -Wl,--wrap=devset_sysctl_raw
#include <errno.h>
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
#include "util/ethtune.h"
#include "state/journal.h"

/* Every restore request is recorded here instead of touching a device. */
static char calls[16][256];
static int ncalls;
static const char *missing_dev;

int __wrap_devset_apply_raw(const char *dev, int argc, char **argv, char *err, size_t errlen)
{
	size_t off;
	int i;

	if (missing_dev && !strcmp(dev, missing_dev)) {
		snprintf(err, errlen, "no such device '%s'", dev);
		return -ENODEV;
	}
	off = snprintf(calls[ncalls], sizeof(calls[0]), "%s", dev);
	for (i = 0; i < argc; i++)
		off += snprintf(calls[ncalls] + off, sizeof(calls[0]) - off, " %s", argv[i]);
	ncalls++;
	return 0;
}

int __wrap_devset_sysctl_raw(const char *name, const char *val, char *err, size_t errlen)
{
	snprintf(calls[ncalls++], sizeof(calls[0]), "sysctl %s=%s", name, val);
	return 0;
}

static char dir[] = "/tmp/ethtune-journal-XXXXXX";

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
	assert_int_equal(journal_restore(NULL, false, &restored, &kept), 0);
	assert_int_equal(restored, 4);
	assert_int_equal(kept, 0);
	assert_int_equal(ncalls, 2);
	/* the newest group (link) goes back first */
	assert_string_equal(calls[0], "veth0 mtu 1500");
	assert_string_equal(calls[1], "veth0 coalesce tx-usecs 16 tx-frames 32");
	/* the journal is empty afterwards */
	ncalls = 0;
	assert_int_equal(journal_restore(NULL, false, &restored, &kept), 0);
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
	assert_int_equal(journal_restore("veth1", false, &restored, &kept), 0);
	assert_int_equal(restored, 1);
	assert_string_equal(calls[0], "veth1 feature tx-tcp-segmentation on");
	/* a device that is gone keeps its entries: nothing the user had is forgotten */
	assert_int_equal(journal_restore(NULL, false, &restored, &kept), 0);
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
	assert_int_equal(journal_restore(NULL, false, &restored, &kept), 0);
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
		journal_temp_begin();
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
	assert_int_equal(journal_restore(NULL, true, &restored, &kept), 0);
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
	journal_temp_begin();
	rec("veth5", "coalesce", "tx-usecs", "0");
	/* in temporary mode: the new entry is this process's temporary one, the older stays */
	assert_int_equal(journal_load(&v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].dev, "veth4");
	assert_false(v[0].temp);
	assert_string_equal(v[1].dev, "veth5");
	assert_true(v[1].temp);
	assert_int_equal(v[1].pid, getpid());
	free(v);
	assert_int_equal(journal_temp_end(), 0);
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
	};
	int ret;

	if (!mkdtemp(dir))
		return 1;
	setenv("ETHTUNE_STATE_DIR", dir, 1);
	ret = cmocka_run_group_tests_name("journal", tests, NULL, NULL);
	return ret;
}
