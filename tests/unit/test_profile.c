/* Unit tests for the profile parser, validation against the parameter tables, and matching. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/ethtune.h"
#include "knowledge/profile.h"
#include "knowledge/drvdb.h"

static struct profile P;
static char err[512];

static const char good[] = "# mlx4 after the fix\n"
			   "[profile]\n"
			   "description = test profile\n"
			   "[match]\n"
			   "driver = mlx4_en, mlx4\n"
			   "pci = 15b3:1003, 15b3:*\n"
			   "firmware = 2.42.*\n"
			   "kernel = >=3.7 <6.16   # trailing comment\n"
			   "\n"
			   "[coalesce]\n"
			   "  tx-usecs = 16\n"
			   "tx-frames=16\n"
			   "adaptive-tx = off\n"
			   "[ring]\n"
			   "tx = 1024\n"
			   "[sysctl]\n"
			   "net.ipv4.tcp_limit_output_bytes = 1048576\n"
			   "net.ipv4.tcp_wmem = 4096 16384 4194304\n"
			   "[provenance]\n"
			   "kind = measured\n"
			   "host = lab1\n"
			   "date = 2026-11-30\n"
			   "objective = throughput\n";

static int parse(const char *text)
{
	return profile_parse(text, "t", "t.profile", &P, err, sizeof(err));
}

static void test_parse_good(void **state)
{
	assert_int_equal(parse(good), 0);
	assert_string_equal(P.name, "t");
	assert_string_equal(profile_get(&P, PS_COALESCE, "tx-usecs"), "16");
	assert_string_equal(profile_get(&P, PS_COALESCE, "tx-frames"), "16");
	assert_string_equal(profile_get(&P, PS_MATCH, "kernel"), ">=3.7 <6.16");
	assert_string_equal(profile_get(&P, PS_SYSCTL, "net.ipv4.tcp_wmem"), "4096 16384 4194304");
	assert_int_equal(profile_count(&P, PS_COALESCE), 3);
	assert_int_equal(profile_count(&P, PS_RING), 1);
	assert_null(profile_get(&P, PS_RING, "rx"));
	assert_string_equal(prof_sect_name(PS_PROVENANCE), "provenance");
}

/* [napi] and [bql] take the keywords of ethtune set DEV napi|bql, nothing else. */
static void test_parse_napi_bql(void **state)
{
	const char *t = "[match]\ndriver = veth\n[napi]\ngro-flush-timeout = 5000000000\n"
			"threaded = on\n[bql]\nstall-thrs = 20\n[provenance]\nkind = documented\n"
			"source = x\n";

	assert_int_equal(parse(t), 0);
	assert_string_equal(profile_get(&P, PS_NAPI, "gro-flush-timeout"), "5000000000");
	assert_string_equal(profile_get(&P, PS_BQL, "stall-thrs"), "20");
	assert_string_equal(prof_sect_name(PS_NAPI), "napi");
	/* a profile with only [napi] has settings */
	assert_int_equal(parse("[match]\ndriver = veth\n[napi]\ndefer-hard-irqs = 2\n"
			       "[provenance]\nkind = documented\nsource = x\n"),
			 0);
}

static void test_parse_name(void **state)
{
	const char *t = "[profile]\nname = my-nic_v2\n[match]\ndriver = ice\n[coalesce]\n"
			"tx-usecs = 8\n[provenance]\nkind = documented\nsource = x\n";

	assert_int_equal(parse(t), 0);
	assert_string_equal(P.name, "my-nic_v2");
}

/* Each bad profile: refused with one line naming file, line and the problem. */
static void expect_bad(const char *text, const char *needle)
{
	assert_int_equal(parse(text), -EINVAL);
	if (!strstr(err, needle))
		fail_msg("error '%s' lacks '%s'", err, needle);
	assert_null(strchr(err, '\n'));
	assert_non_null(strstr(err, "t.profile"));
}

#define HEAD "[match]\ndriver = veth\n"
#define TAIL "[provenance]\nkind = documented\nsource = x\n"

static void test_parse_bad(void **state)
{
	expect_bad(HEAD "[coalesce]\ntx-usec = 16\n" TAIL,
		   "t.profile:4: unknown coalesce parameter 'tx-usec'");
	expect_bad(HEAD "[coalesce]\ntx-usecs = fast\n" TAIL, "invalid value 'fast' for tx-usecs");
	expect_bad(HEAD "[coalesce]\ntx-usecs = -1\n" TAIL, "invalid value");
	expect_bad(HEAD "[coalesce]\ntx-usecs = 4294967296\n" TAIL, "invalid value");
	expect_bad(HEAD "[coalesce]\nadaptive-tx = maybe\n" TAIL, "expected on or off");
	expect_bad(HEAD "[ring]\ntx = 0\n" TAIL, "below the minimum");
	expect_bad(HEAD "[ring]\ntx-max = 4096\n" TAIL, "unknown rings parameter");
	expect_bad(HEAD "[channels]\nqueues = 4\n" TAIL, "unknown channels parameter 'queues'");
	expect_bad(HEAD "[coalesc]\ntx-usecs = 1\n" TAIL, "t.profile:3: unknown section [coalesc]");
	expect_bad("tx-usecs = 1\n" HEAD TAIL, "outside any section");
	expect_bad(HEAD "[coalesce]\ntx-usecs 16\n" TAIL, "expected 'key = value'");
	expect_bad(HEAD "[coalesce]\ntx-usecs =\n" TAIL, "empty value");
	expect_bad(HEAD "[coalesce]\ntx-usecs = 1\ntx-usecs = 2\n" TAIL, "given twice");
	expect_bad(HEAD "[coalesce\n" TAIL, "malformed section");
	expect_bad("[match]\n[coalesce]\ntx-usecs = 1\n" TAIL, "would match nothing");
	expect_bad("[match]\nfirmware = 1.*\n[coalesce]\ntx-usecs = 1\n" TAIL,
		   "would match nothing");
	expect_bad("[match]\nvendor = intel\n[coalesce]\ntx-usecs = 1\n" TAIL,
		   "unknown key 'vendor' in [match]");
	expect_bad("[match]\npci = 8086\n[coalesce]\ntx-usecs = 1\n" TAIL, "VENDOR:DEVICE");
	expect_bad("[match]\npci = 8086:10d3x\n[coalesce]\ntx-usecs = 1\n" TAIL, "VENDOR:DEVICE");
	expect_bad(HEAD "kernel = new\n[coalesce]\ntx-usecs = 1\n" TAIL, "expected a range");
	expect_bad(HEAD "[sysctl]\nkernel.panic = 1\n" TAIL, "not a network sysctl");
	expect_bad(HEAD "[sysctl]\nnet/ipv4/x = 1\n" TAIL, "not a network sysctl");
	expect_bad(HEAD "[sysctl]\nnet..x = 1\n" TAIL, "not a network sysctl");
	expect_bad(HEAD TAIL, "no settings");
	expect_bad(HEAD "[napi]\ngro_flush_timeout = 1\n" TAIL,
		   "t.profile:4: unknown napi parameter 'gro_flush_timeout'");
	expect_bad(HEAD "[napi]\ndefer-hard-irqs = 2147483648\n" TAIL, "above the maximum");
	expect_bad(HEAD "[napi]\nthreaded = yes\n" TAIL, "expected on or off");
	expect_bad(HEAD "[bql]\nstall_thrs = 4\n" TAIL, "unknown bql parameter 'stall_thrs'");
	expect_bad(HEAD "[bql]\nlimit-max = lots\n" TAIL, "invalid value 'lots' for limit-max");
	expect_bad(HEAD "[coalesce]\ntx-usecs = 1\n", "needs kind");
	expect_bad(HEAD "[coalesce]\ntx-usecs = 1\n[provenance]\nkind = guessed\n",
		   "expected measured or documented");
	expect_bad(HEAD "[coalesce]\ntx-usecs = 1\n[provenance]\nkind = documented\n",
		   "needs [provenance] source");
	expect_bad(HEAD "[coalesce]\ntx-usecs = 1\n[provenance]\nkind = measured\nhost = h\n",
		   "host, date and objective");
	expect_bad(HEAD
		   "[coalesce]\ntx-usecs = 1\n[provenance]\nkind = measured\nobjective = speed\n",
		   "objective 'speed'");
	expect_bad(
		HEAD
		"[coalesce]\ntx-usecs = 1\n[provenance]\nkind = documented\nsource = x\nwho = me\n",
		"unknown key 'who' in [provenance]");
	expect_bad("[profile]\nname = a/b\n" HEAD "[coalesce]\ntx-usecs = 1\n" TAIL,
		   "invalid profile name");
}

static void test_kver(void **state)
{
	assert_true(kver_cmp("6.1.0-13-amd64", "6.16") < 0);
	assert_true(kver_cmp("6.18.44-fc", "6.16") > 0);
	assert_int_equal(kver_cmp("6.16.0", "6.16"), 0);
	assert_true(kver_cmp("3.10", "3.9") > 0);
	assert_true(kver_cmp("4.0", "3.99.1") > 0);
}

static void test_match(void **state)
{
	struct prof_dev d = { .driver = "mlx4_en",
			      .fw = "2.42.5000",
			      .kernel = "5.10.0-20-amd64",
			      .pci = true,
			      .vendor = 0x15b3,
			      .device = 0x1007 };
	int s;

	assert_int_equal(parse(good), 0);
	s = profile_match(&P, &d);
	assert_int_equal(s, 1 + 4 + 2 + 1); /* driver, pci (wildcard), firmware, kernel */
	strcpy(d.kernel, "6.16.0");
	assert_int_equal(profile_match(&P, &d), -1); /* <6.16 */
	strcpy(d.kernel, "3.6.11");
	assert_int_equal(profile_match(&P, &d), -1);
	strcpy(d.kernel, "4.19");
	strcpy(d.fw, "2.40.7000");
	assert_int_equal(profile_match(&P, &d), -1);
	strcpy(d.fw, "2.42.1");
	d.vendor = 0x8086;
	assert_int_equal(profile_match(&P, &d), -1);
	d.vendor = 0x15b3;
	d.pci = false;
	assert_int_equal(profile_match(&P, &d), -1);
	d.pci = true;
	strcpy(d.driver, "mlx5_core");
	assert_int_equal(profile_match(&P, &d), -1);

	/* driver aliases through the driver database; kernel range with a dash */
	assert_int_equal(parse("[match]\ndriver = stmmac\nkernel = 5.4-6.15\n[coalesce]\n"
			       "tx-frames = 1\n" TAIL),
			 0);
	{
		struct prof_dev g = { .driver = "st_gmac", .kernel = "6.1.0" };

		assert_int_equal(profile_match(&P, &g), 2);
		strcpy(g.kernel, "6.16.1");
		assert_int_equal(profile_match(&P, &g), -1);
	}
	/* subsystem is the most specific key */
	assert_int_equal(parse("[match]\npci = 8086:10d3\nsubsystem = 8086:a01f\n[coalesce]\n"
			       "rx-usecs = 3\n" TAIL),
			 0);
	{
		struct prof_dev e = { .driver = "e1000e",
				      .pci = true,
				      .vendor = 0x8086,
				      .device = 0x10d3,
				      .sub_vendor = 0x8086,
				      .sub_device = 0xa01f };

		assert_int_equal(profile_match(&P, &e), 12);
		e.sub_device = 1;
		assert_int_equal(profile_match(&P, &e), -1);
	}
}

/* The shipped profiles all parse and each names its driver. */
/* A documented profile's numbers are the driver knowledge's defaults: one source of facts. */
static void shipped_matches_drvdb(const struct profile *p)
{
	const char *drv = profile_get(p, PS_MATCH, "driver");
	unsigned int i, want;
	char *end;

	for (i = 0; i < p->n; i++) {
		const struct prof_kv *kv = &p->kv[i];
		unsigned long have;

		if (kv->sect != PS_COALESCE || drvdb_default_u32(drv, kv->key, &want))
			continue;
		have = strtoul(kv->val, &end, 10);
		if (*end || have != want)
			fail_msg("profiles/%s.profile: %s = %s, drvdb says %u", p->name, kv->key,
				 kv->val, want);
	}
}

static void test_shipped(void **state)
{
	static const char *const names[] = { "e1000e", "virtio_net", "mlx5_core", "mlx4_en", "ice",
					     "i40e",   "ixgbe",	     "bnxt_en",	  "ena",     "gve",
					     "qeth",   "stmmac",     "txsim",	  "veth" };
	char path[256];
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/profiles/%s.profile",
			 getenv("ETHTUNE_ROOT") ? getenv("ETHTUNE_ROOT") : ".", names[i]);
		if (profile_load(path, &P, err, sizeof(err)))
			fail_msg("%s", err);
		assert_string_equal(P.name, names[i]);
		assert_non_null(profile_get(&P, PS_MATCH, "driver"));
		assert_string_equal(profile_get(&P, PS_PROVENANCE, "kind"), "documented");
		shipped_matches_drvdb(&P);
	}
	assert_int_equal(profile_load("/nonexistent/x.profile", &P, err, sizeof(err)), -ENOENT);
	assert_int_equal(profile_find("../etc", &P, err, sizeof(err)), -ENOENT);
	assert_int_equal(profile_find("bad name", &P, err, sizeof(err)), -EINVAL);
}

static void test_write_roundtrip(void **state)
{
	struct profile w, r;
	char path[] = "/tmp/ethtune-prof-XXXXXX", file[64];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	snprintf(file, sizeof(file), "%s.profile", path);
	profile_init(&w, "txsim-measured");
	assert_int_equal(profile_add(&w, PS_MATCH, "driver", "txsim", err, sizeof(err)), 0);
	assert_int_equal(profile_add(&w, PS_COALESCE, "tx-usecs", "16", err, sizeof(err)), 0);
	assert_int_equal(profile_add(&w, PS_COALESCE, "tx-usecs", "8", err, sizeof(err)), -EEXIST);
	assert_int_equal(profile_add(&w, PS_COALESCE, "tx-usec", "8", err, sizeof(err)), -EINVAL);
	assert_int_equal(profile_add(&w, PS_COALESCE, "tx-frames", "1\n[x]", err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(profile_add(&w, PS_SYSCTL, "net.ipv4.tcp_limit_output_bytes", "131072",
				     err, sizeof(err)),
			 0);
	/* incomplete provenance: save refuses and writes nothing */
	assert_int_equal(profile_add(&w, PS_PROVENANCE, "kind", "measured", err, sizeof(err)), 0);
	assert_int_equal(profile_save(&w, file, err, sizeof(err)), -EINVAL);
	assert_int_equal(access(file, F_OK), -1);
	assert_int_equal(profile_add(&w, PS_PROVENANCE, "host", "lab", err, sizeof(err)), 0);
	assert_int_equal(profile_add(&w, PS_PROVENANCE, "date", "2026-11-30", err, sizeof(err)), 0);
	assert_int_equal(
		profile_add(&w, PS_PROVENANCE, "objective", "throughput", err, sizeof(err)), 0);
	assert_int_equal(profile_save(&w, file, err, sizeof(err)), 0);
	assert_int_equal(profile_load(file, &r, err, sizeof(err)), 0);
	unlink(file);
	assert_string_equal(r.name, "txsim-measured");
	assert_string_equal(profile_get(&r, PS_COALESCE, "tx-usecs"), "16");
	assert_string_equal(profile_get(&r, PS_PROVENANCE, "objective"), "throughput");
	assert_int_equal(r.n, w.n + 1); /* + [profile] name */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),	cmocka_unit_test(test_parse_napi_bql),
		cmocka_unit_test(test_parse_name),
		cmocka_unit_test(test_parse_bad),	cmocka_unit_test(test_kver),
		cmocka_unit_test(test_match),		cmocka_unit_test(test_shipped),
		cmocka_unit_test(test_write_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
