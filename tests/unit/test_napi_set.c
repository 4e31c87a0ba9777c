/* set DEV napi: per-NAPI changes journaled first, unknown ids and missing support refused. */
// LDFLAGS: -Wl,--wrap=nl_open_genl -Wl,--wrap=nl_close -Wl,--wrap=nl_talk
// LDFLAGS: -Wl,--wrap=napi_dump -Wl,--wrap=napi_set -Wl,--wrap=journal_record
// LDFLAGS: -Wl,--wrap=journal_txn_begin -Wl,--wrap=journal_txn_drop
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "nl/netdev.h"
#include "state/devset.h"
#include "state/journal.h"

/* What the fake kernel saw, in order: "journal KEY=OLD", "set ID KEY=VAL ...". */
static char events[32][160];
static int nev;
static int open_err;	   /* nl_open_genl("netdev") answers this */
static int probe_err;	   /* the id-only napi-set (is there napi-set at all?) */
static uint32_t refuse_id; /* napi_set answers EINVAL for this NAPI */
static int dropped;
static unsigned int n_fake; /* NAPIs of the fake device: ids 10, 11, ... */
static char *buf;	    /* the request buffer, NL_BUFSZ, kept for the process */

int __wrap_nl_open_genl(struct nl_sock *ns, const char *family)
{
	if (!buf)
		buf = malloc(NL_BUFSZ);
	assert_non_null(buf);
	memset(ns, 0, sizeof(*ns));
	ns->buf = buf;
	ns->family = 30;
	return open_err;
}

void __wrap_nl_close(struct nl_sock *ns)
{
}

int __wrap_nl_talk(struct nl_sock *ns, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	return probe_err;
}

int __wrap_napi_dump(struct nl_sock *ns, struct nd_dev *d)
{
	unsigned int i;

	d->n_napi = n_fake;
	for (i = 0; i < n_fake; i++) {
		struct nd_napi *n = &d->napi[i];

		memset(n, 0, sizeof(*n));
		n->id = 10 + i;
		n->a.v[ND_A_NAPI_ID] = n->id;
		n->a.v[ND_A_NAPI_DEFER_HARD_IRQS] = i; /* old values differ per NAPI */
		n->a.v[ND_A_NAPI_THREADED] = 0;
		n->a.v[ND_A_NAPI_GRO_FLUSH_TIMEOUT] = 0;
		n->a.v[ND_A_NAPI_IRQ_SUSPEND_TIMEOUT] = 0;
		n->a.present = (1u << ND_A_NAPI_ID) | (1u << ND_A_NAPI_DEFER_HARD_IRQS) |
			       (1u << ND_A_NAPI_THREADED) | (1u << ND_A_NAPI_GRO_FLUSH_TIMEOUT) |
			       (1u << ND_A_NAPI_IRQ_SUSPEND_TIMEOUT);
	}
	return 0;
}

int __wrap_napi_set(struct nl_sock *ns, uint32_t id, const struct et_change *ch, unsigned int n)
{
	char *e = events[nev++];
	size_t off;
	unsigned int i;

	off = snprintf(e, sizeof(events[0]), "set %u", id);
	for (i = 0; i < n; i++)
		off += snprintf(e + off, sizeof(events[0]) - off, " %s=%llu", ch[i].p->key,
				(unsigned long long)ch[i].val);
	return id == refuse_id ? -EINVAL : 0;
}

int __wrap_journal_record(const struct journal_entry *e)
{
	snprintf(events[nev++], sizeof(events[0]), "journal %s %.60s=%.40s", e->object, e->key,
		 e->old);
	return 0;
}

int __wrap_journal_txn_begin(int *mark)
{
	*mark = 0;
	return 0;
}

int __wrap_journal_txn_drop(int mark)
{
	dropped++;
	return 0;
}

static int setup(void **state)
{
	nev = 0;
	open_err = 0;
	probe_err = 0;
	refuse_id = 0;
	dropped = 0;
	n_fake = 2;
	return 0;
}

static int set(const char *words, char *err, size_t len)
{
	char copy[256], *argv[32], *save, *t;
	int argc = 0;

	snprintf(copy, sizeof(copy), "%s", words);
	for (t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	return devset_apply("lo", argc, argv, err, len, NULL);
}

static void all_napis_journaled_then_set(void **state)
{
	char err[512];

	assert_int_equal(set("napi all defer-hard-irqs 2 threaded on", err, sizeof(err)), 0);
	assert_int_equal(nev, 6);
	assert_string_equal(events[0], "journal napi 10/defer-hard-irqs=0");
	assert_string_equal(events[1], "journal napi 11/defer-hard-irqs=1");
	assert_string_equal(events[2], "journal napi 10/threaded=off");
	assert_string_equal(events[3], "journal napi 11/threaded=off");
	assert_string_equal(events[4], "set 10 defer-hard-irqs=2 threaded=1");
	assert_string_equal(events[5], "set 11 defer-hard-irqs=2 threaded=1");
}

static void one_napi(void **state)
{
	char err[512];

	assert_int_equal(set("napi 11 gro-flush-timeout 5000000000", err, sizeof(err)), 0);
	assert_int_equal(nev, 2);
	assert_string_equal(events[0], "journal napi 11/gro-flush-timeout=0");
	assert_string_equal(events[1], "set 11 gro-flush-timeout=5000000000");
}

static void unknown_id_changes_nothing(void **state)
{
	char err[512];

	assert_int_equal(set("napi 12 defer-hard-irqs 1", err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "no NAPI 12 on lo (its NAPIs: 10, 11)");
	assert_int_equal(nev, 0);
	n_fake = 0;
	assert_int_equal(set("napi all defer-hard-irqs 1", err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "lo has no NAPI instances");
	assert_int_equal(nev, 0);
}

static void out_of_range_changes_nothing(void **state)
{
	char err[512];

	assert_int_equal(set("napi defer-hard-irqs 2147483648", err, sizeof(err)), -ERANGE);
	assert_string_equal(err, "defer-hard-irqs 2147483648 is above the maximum 2147483647");
	assert_int_equal(set("napi threaded maybe", err, sizeof(err)), -EINVAL);
	assert_int_equal(set("napi all defer-hard-irqs", err, sizeof(err)), -EINVAL);
	/* every NAPI and one of them: the same key twice for that one */
	assert_int_equal(set("napi threaded on 10/threaded off", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "threaded given twice");
	assert_int_equal(set("napi Defer-hard-irqs 1", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "unknown napi parameter 'Defer-hard-irqs' (expected "
				 "defer-hard-irqs, gro-flush-timeout, irq-suspend-timeout or "
				 "threaded)");
	assert_int_equal(nev, 0);
}

static void no_family(void **state)
{
	char err[512];

	open_err = -EPROTONOSUPPORT;
	assert_int_equal(set("napi 10 defer-hard-irqs 1", err, sizeof(err)), -EOPNOTSUPP);
	assert_string_equal(err, "NAPI 10: this kernel has no netdev netlink family (napi all "
				 "uses lo's sysfs files)");
	/* no napi-set and no sysfs file for it: nothing can set it */
	assert_int_equal(set("napi irq-suspend-timeout 1000", err, sizeof(err)), -EOPNOTSUPP);
	assert_string_equal(err, "irq-suspend-timeout cannot be set on lo: the kernel has neither "
				 "napi-set for it nor a sysfs file");
	assert_int_equal(nev, 0);
}

static void no_napi_set_op(void **state)
{
	char err[512];

	/* napi-get answers, napi-set does not exist (v6.8-v6.12) */
	probe_err = -EOPNOTSUPP;
	assert_int_equal(set("napi 10 threaded on", err, sizeof(err)), -EOPNOTSUPP);
	assert_string_equal(err, "NAPI 10: this kernel cannot set threaded per NAPI");
	assert_int_equal(nev, 0);
}

static void refusal_puts_back_the_napis_done(void **state)
{
	char err[512];

	refuse_id = 11;
	assert_int_equal(set("napi defer-hard-irqs 7", err, sizeof(err)), -EINVAL);
	assert_int_equal(nev, 5);
	assert_string_equal(events[2], "set 10 defer-hard-irqs=7");
	assert_string_equal(events[3], "set 11 defer-hard-irqs=7");
	/* NAPI 10 took it: back to its old value; the journal entries are dropped */
	assert_string_equal(events[4], "set 10 defer-hard-irqs=0");
	assert_int_equal(dropped, 1);
	assert_string_equal(err, "kernel rejected napi defer-hard-irqs on lo NAPI 11: Invalid "
				 "argument");
}

static void restore_form(void **state)
{
	struct devset_kv kv[] = { { "11/defer-hard-irqs", "1" }, { "10/threaded", "off" } };
	char err[512];

	/* the journal's keys, put back without journaling */
	assert_int_equal(devset_set("lo", "napi", kv, 2, 0, err, sizeof(err), NULL), 0);
	assert_int_equal(nev, 2);
	assert_string_equal(events[0], "set 10 threaded=0");
	assert_string_equal(events[1], "set 11 defer-hard-irqs=1");
	kv[0].key = "x11/defer-hard-irqs";
	assert_int_equal(devset_set("lo", "napi", kv, 1, 0, err, sizeof(err), NULL), -EINVAL);
	assert_string_equal(err, "invalid napi target in 'x11/defer-hard-irqs'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(all_napis_journaled_then_set, setup),
		cmocka_unit_test_setup(one_napi, setup),
		cmocka_unit_test_setup(unknown_id_changes_nothing, setup),
		cmocka_unit_test_setup(out_of_range_changes_nothing, setup),
		cmocka_unit_test_setup(no_family, setup),
		cmocka_unit_test_setup(no_napi_set_op, setup),
		cmocka_unit_test_setup(refusal_puts_back_the_napis_done, setup),
		cmocka_unit_test_setup(restore_form, setup),
	};

	return cmocka_run_group_tests_name("napi_set", tests, NULL, NULL);
}
