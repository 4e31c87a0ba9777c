/* devset: a change a driver takes only with the link down (EBUSY) is bounced only when allowed. */
// LDFLAGS: -Wl,--wrap=nl_open_genl -Wl,--wrap=nl_open_rtnl -Wl,--wrap=nl_close
// LDFLAGS: -Wl,--wrap=nl_strerror -Wl,--wrap=obj_get -Wl,--wrap=obj_set -Wl,--wrap=link_get
// LDFLAGS: -Wl,--wrap=link_admin -Wl,--wrap=link_wait_up -Wl,--wrap=journal_record
// LDFLAGS: -Wl,--wrap=journal_txn_begin -Wl,--wrap=journal_txn_drop -Wl,--wrap=link_set
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <cmocka.h>

#include "nl/devobj.h"
#include "state/devset.h"
#include "nl/ethtool_attrs.h"
#include "state/journal.h"
#include "nl/nl.h"

/* What the fake device and kernel did, in order: "journal KEY=OLD", "down", "set", "up". */
static char events[16][128];
static int nev;
static bool link_up;	  /* administrative state of the fake device */
static int busy_while_up; /* obj_set answers EBUSY while the link is up */
static int set_err_down;  /* what obj_set answers while the link is down */
static int dropped;	  /* journal transactions dropped */
static int admin_err;	  /* what link_admin answers */
static uint64_t mtu;	  /* the fake device's MTU */

static void event(const char *fmt, const char *a, const char *b)
{
	snprintf(events[nev++], sizeof(events[0]), fmt, a, b);
}

int __wrap_nl_open_genl(struct nl_sock *ns, const char *family)
{
	memset(ns, 0, sizeof(*ns));
	return 0;
}

int __wrap_nl_open_rtnl(struct nl_sock *ns)
{
	memset(ns, 0, sizeof(*ns));
	return 0;
}

void __wrap_nl_close(struct nl_sock *ns)
{
}

const char *__wrap_nl_strerror(const struct nl_sock *ns, int err)
{
	return strerror(-err);
}

int __wrap_obj_get(struct nl_sock *ns, const struct et_object *obj, const char *dev,
		   struct et_vals *v)
{
	memset(v, 0, sizeof(*v));
	vals_set(v, ETHTOOL_A_COALESCE_TX_MAX_FRAMES, 1);
	return 0;
}

int __wrap_obj_set(struct nl_sock *ns, const struct et_object *obj, const char *dev,
		   const struct et_change *ch, unsigned int n)
{
	if (link_up && busy_while_up)
		return -EBUSY;
	if (!link_up && set_err_down)
		return set_err_down;
	event("set%s%s", "", "");
	return 0;
}

int __wrap_link_get(struct nl_sock *rt, const char *dev, struct et_link *l)
{
	memset(l, 0, sizeof(*l));
	l->ifindex = 1;
	l->flags = link_up ? IFF_UP : 0;
	vals_set(&l->v, IFLA_MTU, mtu);
	vals_set(&l->v, IFLA_MIN_MTU, 68);
	vals_set(&l->v, IFLA_MAX_MTU, 9000);
	return 0;
}

int __wrap_link_set(struct nl_sock *rt, int ifindex, const struct et_change *ch, unsigned int n)
{
	char v[24];

	mtu = ch[0].val;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)mtu);
	event("mtu %s%s", v, "");
	return 0;
}

int __wrap_link_admin(struct nl_sock *rt, int ifindex, bool up)
{
	if (admin_err)
		return admin_err;
	link_up = up;
	event("%s%s", up ? "up" : "down", "");
	return 0;
}

int __wrap_link_wait_up(const char *dev, double timeout_s)
{
	return 0;
}

int __wrap_journal_record(const struct journal_entry *e)
{
	event("journal %.40s=%.40s", e->key, e->old);
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
	link_up = true;
	busy_while_up = 1;
	set_err_down = 0;
	dropped = 0;
	admin_err = 0;
	mtu = 1500;
	devset_allow_link_down(false);
	return 0;
}

static char *args[] = { "coalesce", "tx-frames", "0" };

static void ebusy_not_allowed_says_how(void **state)
{
	char err[256];

	assert_int_equal(devset_apply("lo", 3, args, err, sizeof(err), NULL), -EBUSY);
	assert_non_null(strstr(err, "--allow-link-down"));
	/* nothing bounced; the journal entry of the refused change is dropped */
	assert_int_equal(nev, 1);
	assert_string_equal(events[0], "journal tx-frames=1");
	assert_int_equal(dropped, 1);
	assert_true(link_up);
}

static void ebusy_allowed_bounces_after_journaling(void **state)
{
	char err[256];

	devset_allow_link_down(true);
	assert_int_equal(devset_apply("lo", 3, args, err, sizeof(err), NULL), 0);
	assert_int_equal(nev, 5);
	assert_string_equal(events[0], "journal tx-frames=1");
	assert_string_equal(events[1], "journal admin-state=up");
	assert_string_equal(events[2], "down");
	assert_string_equal(events[3], "set");
	assert_string_equal(events[4], "up");
	assert_int_equal(dropped, 0);
	assert_true(link_up);
}

static void ebusy_on_a_down_link_is_not_retried(void **state)
{
	char err[256];

	devset_allow_link_down(true);
	link_up = false;
	set_err_down = -EBUSY;
	assert_int_equal(devset_apply("lo", 3, args, err, sizeof(err), NULL), -EBUSY);
	assert_int_equal(nev, 1); /* only the dropped journal entry */
	assert_false(link_up);
}

static void failure_while_down_still_brings_it_up(void **state)
{
	char err[256];

	devset_allow_link_down(true);
	set_err_down = -EINVAL;
	assert_int_equal(devset_apply("lo", 3, args, err, sizeof(err), NULL), -EINVAL);
	assert_true(link_up);
	assert_string_equal(events[nev - 1], "up");
	assert_int_equal(dropped, 1);
}

static void restore_may_bounce_without_journaling(void **state)
{
	char err[256];
	const struct devset_kv kv[] = { { "tx-frames", "0" } };

	assert_int_equal(devset_set("lo", "coalesce", kv, 1, 0, err, sizeof(err), NULL), 0);
	assert_int_equal(nev, 3);
	assert_string_equal(events[0], "down");
	assert_string_equal(events[1], "set");
	assert_string_equal(events[2], "up");
}

/* The structured call journals and applies as the `ethtune set` words do. */
static void structured_set_journals_like_the_words(void **state)
{
	const struct devset_kv kv[] = { { "tx-frames", "0" } };
	char err[256];

	busy_while_up = 0;
	assert_int_equal(
		devset_set("lo", "coalesce", kv, 1, DEVSET_JOURNAL, err, sizeof(err), NULL), 0);
	assert_int_equal(nev, 2);
	assert_string_equal(events[0], "journal tx-frames=1");
	assert_string_equal(events[1], "set");
	nev = 0;
	assert_int_equal(devset_apply("lo", 3, args, err, sizeof(err), NULL), 0);
	assert_int_equal(nev, 2);
	assert_string_equal(events[0], "journal tx-frames=1");
	assert_string_equal(events[1], "set");
	assert_int_equal(devset_set("lo", "coalesc", kv, 1, 0, err, sizeof(err), NULL), -EINVAL);
	assert_non_null(strstr(err, "unknown object 'coalesc'"));
}

static void refused_state_undoes_the_attributes(void **state)
{
	char *a[] = { "mtu", "9000", "admin-state", "down" }, err[256];

	admin_err = -EPERM;
	assert_int_equal(devset_apply("lo", 4, a, err, sizeof(err), NULL), -EPERM);
	assert_non_null(strstr(err, "cannot set lo down"));
	/* attributes first, then the state; the refusal puts the MTU back and the journal too */
	assert_int_equal(nev, 4);
	assert_string_equal(events[0], "journal mtu=1500");
	assert_string_equal(events[1], "journal admin-state=up");
	assert_string_equal(events[2], "mtu 9000");
	assert_string_equal(events[3], "mtu 1500");
	assert_int_equal(mtu, 1500);
	assert_true(link_up);
	assert_int_equal(dropped, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(ebusy_not_allowed_says_how, setup),
		cmocka_unit_test_setup(structured_set_journals_like_the_words, setup),
		cmocka_unit_test_setup(ebusy_allowed_bounces_after_journaling, setup),
		cmocka_unit_test_setup(ebusy_on_a_down_link_is_not_retried, setup),
		cmocka_unit_test_setup(failure_while_down_still_brings_it_up, setup),
		cmocka_unit_test_setup(restore_may_bounce_without_journaling, setup),
		cmocka_unit_test_setup(refused_state_undoes_the_attributes, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
