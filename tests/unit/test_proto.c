/* Unit tests for the probe control protocol (validation, framing, timeouts) and its statistics. */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "probe/probe.h"

static char err[256];

static int parse(const char *s)
{
	json_t *m = NULL;
	int r;

	err[0] = 0;
	r = proto_parse(s, strlen(s), &m, err, sizeof(err));
	if (r >= 0)
		assert_non_null(m);
	else
		assert_null(m);
	json_decref(m);
	return r;
}

#define SETUP(extra)                                                                               \
	"{\"v\":3,\"type\":\"setup\",\"test\":\"stream\",\"flows\":32,\"msg-size\":256,"           \
	"\"sndbuf\":8192,\"rcvbuf\":8192,\"nodelay\":true,\"cc\":\"cubic\",\"cpu\":-1,"            \
	"\"duration-ms\":60000,\"warmup-ms\":0" extra "}"

static void test_valid(void **state)
{
	assert_int_equal(parse("{\"v\":3,\"type\":\"hello\",\"version\":\"0.1.0\"}"), PM_HELLO);
	assert_int_equal(parse(SETUP("")), PM_SETUP);
	assert_int_equal(parse("{\"v\":3,\"type\":\"start\"}"), PM_START);
	assert_int_equal(parse("{\"v\":3,\"type\":\"setup-ok\",\"data-port\":40000,\"cookie\":7}"),
			 PM_SETUP_OK);
	/* serve chooses the cookie; a setup-ok without one is refused */
	assert_int_equal(parse("{\"v\":3,\"type\":\"setup-ok\",\"data-port\":40000}"), -EPROTO);
	assert_non_null(strstr(err, "lacks field 'cookie'"));
	assert_int_equal(parse("{\"v\":3,\"type\":\"auth\",\"answer\":\"ab\"}"), PM_AUTH);
	assert_int_equal(parse("{\"v\":3,\"type\":\"auth\"}"), -EPROTO);
	assert_int_equal(parse("{\"v\":3,\"type\":\"result\",\"elapsed-ns\":1,\"cpu-util\":1.5,"
			       "\"proc-cpu\":3,\"sndbuf-end\":1,\"rcvbuf-end\":2,\"bytes\":[1,2],"
			       "\"trans\":[0,0],\"tcp-info\":{\"rtt-us\":5}}"),
			 PM_RESULT);
	/* the receiver's polling time, optional (an older peer does not send it) */
	assert_int_equal(parse("{\"v\":3,\"type\":\"result\",\"elapsed-ns\":1,\"cpu-util\":1.5,"
			       "\"proc-cpu\":3,\"sndbuf-end\":1,\"rcvbuf-end\":2,\"bytes\":[1],"
			       "\"trans\":[0],\"poll-cpu\":0.5}"),
			 PM_RESULT);
	assert_int_equal(parse("{\"v\":3,\"type\":\"result\",\"elapsed-ns\":1,\"cpu-util\":1.5,"
			       "\"proc-cpu\":3,\"sndbuf-end\":1,\"rcvbuf-end\":2,\"bytes\":[1],"
			       "\"trans\":[0],\"poll-cpu\":\"x\"}"),
			 -EPROTO);
}

static void test_version(void **state)
{
	assert_int_equal(parse("{\"v\":4,\"type\":\"hello\",\"version\":\"9\"}"), -EPROTONOSUPPORT);
	assert_non_null(strstr(err, "version 4"));
	/* An error from a peer of another version still gets through. */
	assert_int_equal(parse("{\"v\":7,\"type\":\"error\",\"msg\":\"x\"}"), PM_ERROR);
	assert_int_equal(parse("{\"type\":\"hello\",\"version\":\"9\"}"), -EPROTO);
	assert_int_equal(parse("{\"v\":\"1\",\"type\":\"hello\",\"version\":\"9\"}"), -EPROTO);
}

static void test_malformed(void **state)
{
	assert_int_equal(parse("hello"), -EBADMSG);
	assert_int_equal(parse("{\"v\":3,"), -EBADMSG);
	assert_int_equal(parse("[1,2]"), -EPROTO);
	assert_int_equal(parse("{\"v\":3}"), -EPROTO);
	assert_int_equal(parse("{\"v\":3,\"type\":\"launch\"}"), -EPROTO);
	assert_non_null(strstr(err, "unknown control message type"));
	assert_int_equal(parse("{\"v\":3,\"type\":\"hello\",\"version\":\"a\",\"version\":\"b\"}"),
			 -EBADMSG);
	/* strict: unknown fields, missing fields, wrong types */
	assert_int_equal(parse("{\"v\":3,\"type\":\"start\",\"x\":1}"), -EPROTO);
	assert_non_null(strstr(err, "unknown field 'x'"));
	assert_int_equal(parse("{\"v\":3,\"type\":\"hello\"}"), -EPROTO);
	assert_non_null(strstr(err, "lacks field 'version'"));
	assert_int_equal(parse(SETUP(",\"bogus\":true")), -EPROTO);
	assert_int_equal(parse(SETUP(",\"recv-size\":8192")), PM_SETUP);
	assert_int_equal(parse(SETUP(",\"recv-size\":-1")), -EPROTO);
	assert_int_equal(parse(SETUP(",\"recv-size\":1e3")), -EPROTO);
	/* the sender's and receiver's paths: named choices and a boolean, both optional */
	assert_int_equal(parse(SETUP(",\"send\":\"zerocopy\",\"skip-rx-copy\":true")), PM_SETUP);
	assert_int_equal(parse(SETUP(",\"send\":\"sendfile\"")), PM_SETUP);
	assert_int_equal(parse(SETUP(",\"send\":\"splice\"")), -EPROTO);
	assert_int_equal(parse(SETUP(",\"skip-rx-copy\":1")), -EPROTO);
	assert_int_equal(parse(SETUP(",\"rcvlowat\":65536")), PM_SETUP);
	assert_int_equal(parse(SETUP(",\"rcvlowat\":-1")), -EPROTO);
	assert_int_equal(parse(SETUP(",\"rcvlowat\":16777217")), -EPROTO);
	/* the receiver's poll for data, in us: optional, at most 100 ms */
	assert_int_equal(parse(SETUP(",\"rx-poll-usecs\":50")), PM_SETUP);
	assert_int_equal(parse(SETUP(",\"rx-poll-usecs\":-1")), -EPROTO);
	assert_int_equal(parse(SETUP(",\"rx-poll-usecs\":100001")), -EPROTO);
	assert_int_equal(parse("{\"v\":3,\"type\":\"setup-ok\",\"data-port\":\"80\",\"cookie\":1}"),
			 -EPROTO);
	assert_non_null(strstr(err, "wrong type"));
	assert_int_equal(parse("{\"v\":3,\"type\":\"result\",\"elapsed-ns\":1,\"cpu-util\":1,"
			       "\"proc-cpu\":3,\"sndbuf-end\":1,\"rcvbuf-end\":2,\"bytes\":[-1],"
			       "\"trans\":[]}"),
			 -EPROTO);
}

static void test_ranges(void **state)
{
	char buf[4096];
	size_t i, off;

	assert_int_equal(parse("{\"v\":3,\"type\":\"setup-ok\",\"data-port\":0,\"cookie\":1}"),
			 -EPROTO);
	assert_int_equal(parse("{\"v\":3,\"type\":\"setup-ok\",\"data-port\":65536,\"cookie\":1}"),
			 -EPROTO);
	assert_non_null(strstr(err, "out of range"));
	snprintf(buf, sizeof(buf), "%s", SETUP(""));
	memcpy(strstr(buf, "\"flows\":32"), "\"flows\":0 ", 10);
	assert_int_equal(parse(buf), -EPROTO);
	assert_non_null(strstr(err, "'flows'"));
	snprintf(buf, sizeof(buf), "%s", SETUP(""));
	memcpy(strstr(buf, "\"test\":\"stream\""), "\"test\":\"blast_\"", 15);
	assert_int_equal(parse(buf), -EPROTO);
	/* strings have limits */
	off = snprintf(buf, sizeof(buf), "{\"v\":3,\"type\":\"hello\",\"version\":\"");
	for (i = 0; i < 100; i++)
		buf[off++] = 'x';
	snprintf(buf + off, sizeof(buf) - off, "\"}");
	assert_int_equal(parse(buf), -EPROTO);
	/* arrays have limits */
	off = snprintf(buf, sizeof(buf),
		       "{\"v\":3,\"type\":\"result\",\"elapsed-ns\":1,"
		       "\"cpu-util\":1,\"proc-cpu\":3,\"sndbuf-end\":1,\"rcvbuf-end\":2,"
		       "\"trans\":[],\"bytes\":[");
	for (i = 0; i < PROBE_MAX_FLOWS + 1; i++)
		off += snprintf(buf + off, sizeof(buf) - off, "%s1", i ? "," : "");
	snprintf(buf + off, sizeof(buf) - off, "]}");
	assert_int_equal(parse(buf), -EPROTO);
}

static void test_oversized(void **state)
{
	size_t n = PROTO_MAX_MSG + 1;
	char *big = malloc(n);
	json_t *m;

	memset(big, ' ', n);
	assert_int_equal(proto_parse(big, n, &m, err, sizeof(err)), -EMSGSIZE);
	assert_non_null(strstr(err, "limit"));
	free(big);
}

static void test_framing(void **state)
{
	int sv[2];
	json_t *m;
	uint32_t hdr;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	/* round trip */
	m = proto_msg(PM_HELLO);
	json_object_set_new(m, "version", json_string("t"));
	assert_int_equal(proto_send(sv[0], m), 0);
	assert_int_equal(proto_recv(sv[1], 1000, PM_HELLO, &m, err, sizeof(err)), PM_HELLO);
	json_decref(m);
	/* wrong type */
	assert_int_equal(proto_send(sv[0], proto_msg(PM_START)), 0);
	assert_int_equal(proto_recv(sv[1], 1000, PM_READY, &m, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "expected a 'ready'"));
	/* any */
	assert_int_equal(proto_send(sv[0], proto_msg(PM_BYE)), 0);
	assert_int_equal(proto_recv(sv[1], 1000, PM__COUNT, &m, err, sizeof(err)), PM_BYE);
	json_decref(m);
	/* the peer's error comes back as text */
	m = proto_msg(PM_ERROR);
	json_object_set_new(m, "msg", json_string("busy"));
	assert_int_equal(proto_send(sv[0], m), 0);
	assert_int_equal(proto_recv(sv[1], 1000, PM_READY, &m, err, sizeof(err)), -EREMOTEIO);
	assert_string_equal(err, "busy");
	/* oversized length is refused before reading the body */
	hdr = htonl(1u << 30);
	assert_int_equal(write(sv[0], &hdr, 4), 4);
	assert_int_equal(proto_recv(sv[1], 1000, PM_READY, &m, err, sizeof(err)), -EMSGSIZE);
	/* empty */
	hdr = 0;
	assert_int_equal(write(sv[0], &hdr, 4), 4);
	assert_int_equal(proto_recv(sv[1], 1000, PM_READY, &m, err, sizeof(err)), -EPROTO);
	/* silence is bounded */
	assert_int_equal(proto_recv(sv[1], 100, PM_READY, &m, err, sizeof(err)), -ETIMEDOUT);
	/* a truncated body, then the peer goes away */
	hdr = htonl(50);
	assert_int_equal(write(sv[0], &hdr, 4), 4);
	assert_int_equal(write(sv[0], "{\"v\"", 4), 4);
	close(sv[0]);
	assert_int_equal(proto_recv(sv[1], 1000, PM_READY, &m, err, sizeof(err)), -ECONNRESET);
	assert_int_equal(proto_recv(sv[1], 1000, PM_READY, &m, err, sizeof(err)), -ECONNRESET);
	close(sv[1]);
}

static void test_t_quantile(void **state)
{
	double mean, v[] = { 10, 12, 11, 13, 9 };

	assert_true(fabs(stats_t_quantile(0.975, 10) - 2.228139) < 1e-4);
	assert_true(fabs(stats_t_quantile(0.995, 2) - 9.924843) < 1e-4);
	assert_true(fabs(stats_t_quantile(0.95, 1) - 6.313752) < 1e-4);
	assert_true(fabs(stats_t_quantile(0.975, 1000) - 1.962339) < 1e-4);
	assert_true(fabs(stats_t_quantile(0.025, 10) + 2.228139) < 1e-4);
	/* mean 11, s = 1.5811, t(0.975,4) = 2.776445 -> half 1.9632 */
	assert_true(fabs(stats_ci_half(v, 5, 95, &mean) - 1.963243) < 1e-4);
	assert_true(fabs(mean - 11) < 1e-9);
	assert_true(isinf(stats_ci_half(v, 1, 95, &mean)));
}

static void test_hist(void **state)
{
	struct stats_hist *h = calloc(1, sizeof(*h)), *h2 = calloc(1, sizeof(*h2));
	unsigned int prev = 0;
	uint64_t v;

	for (v = 0; v < (1ULL << 40); v = v * 1.01 + 1) {
		assert_true(hist_idx(v) >= prev);
		assert_true(hist_idx(v) < HIST_BUCKETS);
		prev = hist_idx(v);
	}
	for (v = 1; v <= 100000; v++)
		hist_add(v & 1 ? h : h2, v);
	hist_merge(h, h2);
	assert_int_equal(h->n, 100000);
	assert_int_equal(h->min, 1);
	assert_int_equal(h->max, 100000);
	assert_true(fabs(hist_quantile(h, 0.5) / 50000 - 1) < 0.04);
	assert_true(fabs(hist_quantile(h, 0.99) / 99000 - 1) < 0.04);
	assert_true(fabs(hist_quantile(h, 0.999) / 99900 - 1) < 0.04);
	assert_true(hist_quantile(h, 0.9) <= hist_quantile(h, 0.99));
	free(h);
	free(h2);
}

static void test_cfg(void **state)
{
	struct probe_cfg c;
	char host[64];
	uint16_t port;

	probe_cfg_init(&c);
	assert_int_equal(probe_cfg_check(&c, err, sizeof(err)), -EINVAL); /* no peer */
	c.peer = "198.18.0.2";
	assert_int_equal(probe_cfg_check(&c, err, sizeof(err)), 0);
	c.flows = 0;
	assert_int_equal(probe_cfg_check(&c, err, sizeof(err)), -EINVAL);
	c.flows = PROBE_MAX_FLOWS + 1;
	assert_int_equal(probe_cfg_check(&c, err, sizeof(err)), -EINVAL);
	c.flows = 32;
	c.duration_s = 0;
	assert_int_equal(probe_cfg_check(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "duration"));
	c.duration_s = 1;
	c.iter_min = 5;
	c.iter_max = 3;
	assert_int_equal(probe_cfg_check(&c, err, sizeof(err)), -EINVAL);
	/* the sender's paths by name and back; others refused */
	{
		enum probe_send m;
		unsigned int i;

		for (i = 0; i < PROBE_SEND__N; i++) {
			assert_int_equal(probe_send_parse(probe_send_name(i), &m), 0);
			assert_int_equal(m, i);
		}
		assert_int_equal(probe_send_parse("splice", &m), -EINVAL);
		assert_string_equal(probe_send_name(PROBE_SEND_ZEROCOPY), "zerocopy");
	}
	assert_int_equal(probe_peer_split("198.18.0.2:5000", 1, host, sizeof(host), &port), 0);
	assert_string_equal(host, "198.18.0.2");
	assert_int_equal(port, 5000);
	assert_int_equal(probe_peer_split("[2001:db8::1]:7", 1, host, sizeof(host), &port), 0);
	assert_string_equal(host, "2001:db8::1");
	assert_int_equal(port, 7);
	assert_int_equal(probe_peer_split("2001:db8::1", 9, host, sizeof(host), &port), 0);
	assert_int_equal(port, 9);
	assert_int_equal(probe_peer_split("h:0", 9, host, sizeof(host), &port), -EINVAL);
	assert_int_equal(probe_peer_split("h:99999", 9, host, sizeof(host), &port), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),	   cmocka_unit_test(test_version),
		cmocka_unit_test(test_malformed),  cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_oversized),  cmocka_unit_test(test_framing),
		cmocka_unit_test(test_t_quantile), cmocka_unit_test(test_hist),
		cmocka_unit_test(test_cfg),
	};

	unsetenv("ETHTUNE_TEST_PROTO_VERSION");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
