/* Unit tests for profile export: every keyword mapped to each format, values and versions. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/ethtune.h"
#include "knowledge/profile.h"
#include "knowledge/profile_parts.h"
#include "nl/devobj.h"
#include "nl/netdev.h"
#include "state/devset.h"

/* Every settable keyword of one parameter table has a row: a keyword added to the tables later
 * fails here until the export table says which formats carry it (or that none does). */
static void check_table(int obj, const struct et_param *p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (p[i].ro)
			continue;
		if (!exp_map_find(obj, p[i].key))
			fail_msg("%s %s has no row in exp_maps[]", exp_obj_name(obj), p[i].key);
	}
}

static void test_every_keyword_has_a_row(void **state)
{
	const struct et_param *bp;
	const char *fa;
	unsigned int i;

	(void)state;
	check_table(EO_COALESCE, et_coalesce.params, et_coalesce.n_params);
	check_table(EO_RING, et_rings.params, et_rings.n_params);
	check_table(EO_CHANNELS, et_channels.params, et_channels.n_params);
	check_table(EO_NAPI, napi_params, n_napi_params);
	check_table(EO_LINK, link_params, n_link_params);
	for (i = 0; (bp = devset_bql_param_at(i)); i++)
		check_table(EO_BQL, bp, 1);
	assert_true(i >= 3);
	for (i = 0; (fa = feature_alias_at(i)); i++)
		if (!exp_map_find(EO_FEATURE, fa))
			fail_msg("feature %s has no row in exp_maps[]", fa);
	assert_true(i >= 7);
	assert_non_null(exp_map_find(EO_SYSCTL, "net.ipv4.tcp_limit_output_bytes"));
}

/* ... and every row is a keyword of the tables: none is stale or misspelt. */
static void test_every_row_is_a_keyword(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < exp_n_maps; i++) {
		const struct exp_map *m = &exp_maps[i];
		const struct et_param *p = NULL;
		bool ok;

		switch (m->obj) {
		case EO_COALESCE:
			p = obj_param(&et_coalesce, m->key);
			break;
		case EO_RING:
			p = obj_param(&et_rings, m->key);
			break;
		case EO_CHANNELS:
			p = obj_param(&et_channels, m->key);
			break;
		case EO_NAPI:
			p = napi_param(m->key);
			break;
		case EO_BQL:
			p = devset_bql_param(m->key);
			break;
		case EO_LINK:
			p = link_param(m->key);
			break;
		}
		if (m->obj == EO_FEATURE)
			ok = feature_alias(m->key) != NULL;
		else if (m->obj == EO_SYSCTL)
			ok = !strcmp(m->key, "*");
		else
			ok = p && !p->ro;
		if (!ok)
			fail_msg("row %s %s is no settable keyword", exp_obj_name(m->obj), m->key);
	}
}

/* What each format carries, as the table and the consumers' sources say. */
static void test_who_carries_what(void **state)
{
	const struct exp_map *m;

	(void)state;
	m = exp_map_find(EO_COALESCE, "tx-usecs");
	assert_string_equal(m->f[EXP_LINK].name, "TxCoalesceSec");
	assert_int_equal(m->f[EXP_LINK].kind, EK_USEC);
	assert_string_equal(m->f[EXP_NM].name, "coalesce-tx-usecs");
	assert_string_equal(m->f[EXP_TUNED].name, "tx-usecs");
	assert_string_equal(m->f[EXP_IFUPDOWN].name, "hardware-irq-coalesce-tx-usecs");
	assert_null(m->f[EXP_TMPFILES].name);
	assert_null(m->f[EXP_SYSCTL].name);
	m = exp_map_find(EO_COALESCE, "adaptive-rx");
	assert_int_equal(m->f[EXP_NM].kind, EK_01);
	assert_int_equal(m->f[EXP_LINK].kind, EK_YESNO);
	m = exp_map_find(EO_RING, "tx");
	assert_string_equal(m->f[EXP_LINK].name, "TxBufferSize");
	assert_string_equal(m->f[EXP_IFUPDOWN].name, "hardware-dma-ring-tx");
	m = exp_map_find(EO_CHANNELS, "combined");
	assert_string_equal(m->f[EXP_NM].since, "1.46");
	m = exp_map_find(EO_NAPI, "defer-hard-irqs");
	assert_null(m->f[EXP_LINK].name);
	assert_null(m->f[EXP_NM].name);
	assert_string_equal(m->f[EXP_UDEV].name, "napi_defer_hard_irqs");
	assert_string_equal(m->f[EXP_TMPFILES].name, "napi_defer_hard_irqs");
	m = exp_map_find(EO_BQL, "limit-min");
	assert_null(m->f[EXP_UDEV].name);
	assert_string_equal(m->f[EXP_TMPFILES].name, "limit_min");
	m = exp_map_find(EO_NAPI, "irq-suspend-timeout");
	for (int f = 0; f < EXP_NFMT; f++)
		assert_null(m->f[f].name);
	m = exp_map_find(EO_LINK, "txqueuelen");
	assert_string_equal(m->f[EXP_NM].name, "link.tx-queue-length");
	assert_string_equal(m->f[EXP_NM].since, "1.44");
	assert_string_equal(m->f[EXP_UDEV].name, "tx_queue_len");
	assert_string_equal(exp_sysfs_file(EO_BQL, "stall-thrs"), "stall_thrs");
	assert_null(exp_sysfs_file(EO_COALESCE, "tx-usecs"));
	/* every usecs keyword a .link carries carries its unit */
	for (unsigned int i = 0; i < exp_n_maps; i++)
		if (exp_maps[i].obj == EO_COALESCE && strstr(exp_maps[i].key, "usecs") &&
		    exp_maps[i].f[EXP_LINK].name)
			assert_int_equal(exp_maps[i].f[EXP_LINK].kind, EK_USEC);
}

static void test_values(void **state)
{
	const struct exp_map *m;
	char out[64];

	(void)state;
	m = exp_map_find(EO_COALESCE, "tx-usecs");
	assert_int_equal(exp_value(&m->f[EXP_LINK], EO_COALESCE, "tx-usecs", "128", out, 64), 0);
	assert_string_equal(out, "128us"); /* a bare 128 would be 128 seconds */
	assert_int_equal(exp_value(&m->f[EXP_NM], EO_COALESCE, "tx-usecs", "128", out, 64), 0);
	assert_string_equal(out, "128");
	assert_int_equal(exp_value(&m->f[EXP_LINK], EO_COALESCE, "tx-usecs", "x", out, 64),
			 -EINVAL);
	m = exp_map_find(EO_COALESCE, "sample-interval");
	assert_int_equal(exp_value(&m->f[EXP_LINK], EO_COALESCE, "sample-interval", "2", out, 64),
			 0);
	assert_string_equal(out, "2s");
	assert_int_equal(m->f[EXP_LINK].min, 1);
	m = exp_map_find(EO_COALESCE, "adaptive-rx");
	assert_int_equal(exp_value(&m->f[EXP_NM], EO_COALESCE, "adaptive-rx", "on", out, 64), 0);
	assert_string_equal(out, "1");
	assert_int_equal(exp_value(&m->f[EXP_NM], EO_COALESCE, "adaptive-rx", "off", out, 64), 0);
	assert_string_equal(out, "0");
	assert_int_equal(exp_value(&m->f[EXP_LINK], EO_COALESCE, "adaptive-rx", "on", out, 64), 0);
	assert_string_equal(out, "yes");
	assert_int_equal(exp_value(&m->f[EXP_TUNED], EO_COALESCE, "adaptive-rx", "off", out, 64),
			 0);
	assert_string_equal(out, "off");
	m = exp_map_find(EO_FEATURE, "tso");
	assert_int_equal(exp_value(&m->f[EXP_NM], EO_FEATURE, "tso", "off", out, 64), 0);
	assert_string_equal(out, "false");
	m = exp_map_find(EO_NAPI, "threaded");
	assert_int_equal(exp_value(&m->f[EXP_TMPFILES], EO_NAPI, "threaded", "on", out, 64), 0);
	assert_string_equal(out, "1");
}

static void test_versions(void **state)
{
	(void)state;
	assert_true(exp_ver_cmp("1.42.4-1", "1.44") < 0);
	assert_true(exp_ver_cmp("1.46.0", "1.46") == 0);
	assert_true(exp_ver_cmp("252.39-1~deb12u1", "250") > 0);
	assert_true(exp_ver_cmp("1:6.1-1", "5.17") > 0);
	assert_true(exp_ver_cmp("2.20.0-1", "2.25") < 0);
	assert_int_equal(exp_fmt_by_name("systemd-link"), EXP_LINK);
	assert_int_equal(exp_fmt_by_name("nm"), -1);
	assert_string_equal(exp_fmt_name(EXP_TMPFILES), "tmpfiles");
}

static struct exp_set S;

static void add(int obj, const char *key, const char *val, int fmt)
{
	struct exp_item *it = &S.it[S.n++];

	it->obj = obj;
	it->fmt = fmt;
	snprintf(it->key, sizeof(it->key), "%s", key);
	snprintf(it->val, sizeof(it->val), "%s", val);
}

static void test_writers(void **state)
{
	struct exp_file f;

	(void)state;
	memset(&S, 0, sizeof(S));
	snprintf(S.name, sizeof(S.name), "txsim");
	snprintf(S.source, sizeof(S.source), "profile txsim (t.profile)");
	snprintf(S.driver, sizeof(S.driver), "txsim");
	S.pci = true;
	S.vendor = 0x8086;
	S.device = 0x10d3;
	add(EO_COALESCE, "tx-usecs", "16", EXP_LINK);
	add(EO_COALESCE, "adaptive-tx", "off", EXP_LINK);
	add(EO_FEATURE, "tso", "off", EXP_LINK);
	add(EO_COALESCE, "cqe-mode-tx", "off", EXP_UDEV);
	add(EO_NAPI, "defer-hard-irqs", "2", EXP_UDEV);
	add(EO_BQL, "limit-min", "3000", EXP_TMPFILES);
	add(EO_SYSCTL, "net.ipv4.tcp_limit_output_bytes", "1048576", EXP_SYSCTL);

	memset(&f, 0, sizeof(f));
	f.fmt = EXP_LINK;
	assert_int_equal(exp_write_link(&S, &f), 0);
	assert_string_equal(f.rel, "50-ethtune-txsim.link");
	assert_non_null(strstr(f.text.s, "\n[Match]\nDriver=txsim\n"));
	assert_non_null(strstr(f.text.s, "Property=ID_VENDOR_ID=0x8086 ID_MODEL_ID=0x10d3\n"));
	assert_non_null(strstr(f.text.s, "NamePolicy="));
	assert_non_null(strstr(f.text.s, "\nTxCoalesceSec=16us\n"));
	assert_non_null(strstr(f.text.s, "\nUseAdaptiveTxCoalesce=no\n"));
	assert_non_null(
		strstr(f.text.s, "\nTCPSegmentationOffload=no\nTCP6SegmentationOffload=no\n"));
	assert_null(strstr(f.text.s, "cqe"));
	free(f.text.s);

	memset(&f, 0, sizeof(f));
	f.fmt = EXP_UDEV;
	assert_int_equal(exp_write_udev(&S, &f), 0);
	assert_non_null(strstr(f.text.s, "  ENV{ID_NET_DRIVER}==\"txsim\", \\\n"));
	assert_non_null(strstr(f.text.s, "  ATTRS{device}==\"0x10d3\", \\\n"));
	assert_non_null(strstr(f.text.s, "  ATTR{napi_defer_hard_irqs}=\"2\", \\\n"));
	assert_non_null(strstr(f.text.s, "RUN+=\"/sbin/ethtool -C $name cqe-mode-tx off\"\n"));
	free(f.text.s);

	memset(&f, 0, sizeof(f));
	f.fmt = EXP_TMPFILES;
	assert_int_equal(exp_write_tmpfiles(&S, &f), 0);
	assert_non_null(strstr(f.text.s, "\nw /sys/bus/*/drivers/txsim/*/net/*/queues/tx-*/"
					 "byte_queue_limits/limit_min - - - - 3000\n"));
	free(f.text.s);
	snprintf(S.dev, sizeof(S.dev), "ee0");
	memset(&f, 0, sizeof(f));
	f.fmt = EXP_TMPFILES;
	assert_int_equal(exp_write_tmpfiles(&S, &f), 0);
	assert_non_null(strstr(f.text.s, "\nw /sys/class/net/ee0/queues/tx-*/"));
	free(f.text.s);

	memset(&f, 0, sizeof(f));
	f.fmt = EXP_SYSCTL;
	assert_int_equal(exp_write_sysctl(&S, &f), 0);
	assert_non_null(strstr(f.text.s, "\nnet.ipv4.tcp_limit_output_bytes = 1048576\n"));
	free(f.text.s);

	/* the same settings for NetworkManager, tuned and ifupdown */
	for (unsigned int i = 0; i < S.n; i++)
		S.it[i].fmt = S.it[i].obj == EO_COALESCE && strcmp(S.it[i].key, "cqe-mode-tx")
				      ? EXP_NM
				      : -1;
	memset(&f, 0, sizeof(f));
	f.fmt = EXP_NM;
	assert_int_equal(exp_write_nm(&S, &f), 0);
	assert_int_equal(f.mode, 0600);
	assert_non_null(
		strstr(f.text.s, "\n[ethtool]\ncoalesce-tx-usecs=16\ncoalesce-adaptive-tx=0\n"));
	assert_non_null(strstr(f.text.s, "\ninterface-name=ee0\n"));
	free(f.text.s);
	for (unsigned int i = 0; i < S.n; i++)
		S.it[i].fmt = S.it[i].obj == EO_FEATURE || S.it[i].obj == EO_COALESCE ||
					      S.it[i].obj == EO_BQL
				      ? EXP_IFUPDOWN
				      : -1;
	memset(&f, 0, sizeof(f));
	f.fmt = EXP_IFUPDOWN;
	assert_int_equal(exp_write_ifupdown(&S, &f), 0);
	assert_non_null(strstr(f.text.s, "\niface ee0 inet manual\n"));
	assert_non_null(strstr(f.text.s, "\n\thardware-irq-coalesce-tx-usecs 16\n"));
	assert_non_null(strstr(f.text.s, "\n\thardware-irq-coalesce-cqe-mode-tx off\n"));
	assert_non_null(strstr(f.text.s, "\n\toffload-tso off\n"));
	assert_non_null(strstr(f.text.s, "do echo 3000 > $q/limit_min; done\n"));
	free(f.text.s);
	for (unsigned int i = 0; i < S.n; i++)
		S.it[i].fmt = strcmp(S.it[i].key, "cqe-mode-tx") ? EXP_TUNED : -1;
	memset(&f, 0, sizeof(f));
	f.fmt = EXP_TUNED;
	assert_int_equal(exp_write_tuned(&S, &f), 0);
	assert_string_equal(f.rel, "ethtune-txsim/tuned.conf");
	assert_non_null(strstr(f.text.s,
			       "\n[net]\ndevices=ee0\ncoalesce=tx-usecs 16 adaptive-tx off\n"
			       "features=tso off\n"));
	assert_non_null(strstr(f.text.s, "\n[sysfs]\n/sys/class/net/ee0/napi_defer_hard_irqs=2\n"));
	assert_non_null(strstr(f.text.s, "\n[sysctl]\nnet.ipv4.tcp_limit_output_bytes=1048576\n"));
	free(f.text.s);
}

/* docs/export.md's keyword x format table is this table: the rows between its markers are what
 * exp_maps[] says (a row that changes here fails until the document says so). */
static void table_md(struct exp_buf *b)
{
	static const char *const ver_of[EXP_NFMT] = { "udev",	 "NM",	    "tuned",  "ethtool",
						      "ethtool", "systemd", "systemd" };
	unsigned int i;
	int f;

	exp_printf(b, "| keyword |");
	for (f = 0; f < EXP_NFMT; f++)
		exp_printf(b, " %s |", exp_fmt_name(f));
	exp_printf(b, "\n|---|");
	for (f = 0; f < EXP_NFMT; f++)
		exp_printf(b, "---|");
	exp_printf(b, "\n");
	for (i = 0; i < exp_n_maps; i++) {
		const struct exp_map *m = &exp_maps[i];

		exp_printf(b, "| %s %s |", exp_obj_name(m->obj), m->key);
		for (f = 0; f < EXP_NFMT; f++) {
			const struct exp_fkey *k = &m->f[f];

			if (!k->name)
				exp_printf(b, " - |");
			else if (k->since[0])
				exp_printf(b, " `%s` (%s %s) |", k->name, ver_of[f], k->since);
			else
				exp_printf(b, " `%s` |", k->name);
		}
		exp_printf(b, "\n");
	}
}

static void test_docs_table(void **state)
{
	const char *root = getenv("ETHTUNE_ROOT");
	char path[600], *doc, *a, *e;
	struct exp_buf want = {};
	FILE *f;
	long n;

	(void)state;
	snprintf(path, sizeof(path), "%s/docs/export.md", root && *root ? root : ".");
	f = fopen(path, "r");
	if (!f) {
		skip();
		return;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	doc = calloc(1, n + 1);
	assert_int_equal(fread(doc, 1, n, f), (size_t)n);
	fclose(f);
	table_md(&want);
	a = strstr(doc, "<!-- table: tests/unit/test_export.c -->\n");
	e = a ? strstr(a, "<!-- end of table -->") : NULL;
	if (!a || !e)
		fail_msg("docs/export.md has no table markers");
	a += strlen("<!-- table: tests/unit/test_export.c -->\n");
	if ((size_t)(e - a) != want.len || memcmp(a, want.s, want.len)) {
		fprintf(stderr, "docs/export.md's table should read:\n%s", want.s);
		fail_msg("docs/export.md's keyword x format table differs from exp_maps[]");
	}
	free(doc);
	free(want.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_keyword_has_a_row),
		cmocka_unit_test(test_every_row_is_a_keyword),
		cmocka_unit_test(test_who_carries_what),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_writers),
		cmocka_unit_test(test_docs_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
