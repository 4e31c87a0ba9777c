/* ethtune probe: client side of the probe engine, confidence loop, telemetry and the command. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <jansson.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <math.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "nl/devobj.h"
#include "util/ethtune.h"
#include "out/json_print.h"
#include "probe/auth.h"
#include "probe/probe_int.h"

const char *const probe_test_names[] = { "stream", "maerts", "rr", "crr", NULL };

const char *probe_test_name(enum probe_test t)
{
	return (unsigned int)t < 4 ? probe_test_names[t] : "?";
}

const char *const probe_send_names[PROBE_SEND__N + 1] = {
	[PROBE_SEND_COPY] = "copy",
	[PROBE_SEND_ZEROCOPY] = "zerocopy",
	[PROBE_SEND_SENDFILE] = "sendfile",
	[PROBE_SEND__N] = NULL,
};

const char *probe_send_name(enum probe_send s)
{
	return (unsigned int)s < PROBE_SEND__N ? probe_send_names[s] : "?";
}

int probe_send_parse(const char *s, enum probe_send *out)
{
	unsigned int i;

	for (i = 0; i < PROBE_SEND__N; i++)
		if (!strcmp(s, probe_send_names[i])) {
			*out = i;
			return 0;
		}
	return -EINVAL;
}

int probe_test_parse(const char *s, enum probe_test *t)
{
	unsigned int i;

	for (i = 0; s && i < 4; i++)
		if (!strcmp(s, probe_test_names[i])) {
			*t = i;
			return 0;
		}
	return -EINVAL;
}

const char *probe_stop_name(enum probe_stop s)
{
	switch (s) {
	case PROBE_STOP_CONFIDENT:
		return "confidence-reached";
	case PROBE_STOP_MAX_ITER:
		return "max-iterations";
	default:
		return "fixed-count";
	}
}

uint32_t probe_msg_size(const struct probe_cfg *c)
{
	if (c->msg_size)
		return c->msg_size;
	return c->test == PROBE_RR || c->test == PROBE_CRR ? 1 : 128u << 10;
}

int64_t probe_rcvlowat(const struct probe_cfg *c)
{
	if (c->test != PROBE_STREAM && c->test != PROBE_MAERTS)
		return 0;
	if (c->rcvlowat != PROBE_RCVLOWAT_AUTO)
		return c->rcvlowat;
	return c->rcvbuf ? 0 : PROBE_RCVLOWAT_DEFAULT;
}

int64_t probe_rx_poll_us(const struct probe_cfg *c)
{
	if (c->test != PROBE_STREAM && c->test != PROBE_MAERTS)
		return 0;
	return c->rx_poll_us == PROBE_RX_POLL_AUTO ? PROBE_RX_POLL_DEFAULT : c->rx_poll_us;
}

void probe_cfg_init(struct probe_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->port = PROBE_DEFAULT_PORT;
	c->test = PROBE_STREAM;
	c->duration_s = 10;
	c->warmup_s = 1;
	c->flows = 1;
	c->msg_size = 0; /* per test: see probe_msg_size() */
	c->cpu_local = c->cpu_remote = -1;
	c->iter_min = c->iter_max = 1;
	c->rcvlowat = PROBE_RCVLOWAT_AUTO;
	c->rx_poll_us = PROBE_RX_POLL_AUTO;
	c->key_file = auth_key_file();
}

int probe_cfg_check(const struct probe_cfg *c, char *err, size_t errlen)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	if (!c->peer || !*c->peer)
		snprintf(err, errlen, "--peer is required");
	else if (!(c->duration_s >= 0.1 && c->duration_s <= PROBE_MAX_DURATION_S))
		snprintf(err, errlen, "duration %g s out of range 0.1..%d", c->duration_s,
			 PROBE_MAX_DURATION_S);
	else if (!(c->warmup_s >= 0 && c->warmup_s <= 3600))
		snprintf(err, errlen, "warmup %g s out of range 0..3600", c->warmup_s);
	else if (c->flows < 1 || c->flows > PROBE_MAX_FLOWS)
		snprintf(err, errlen, "flow count %u out of range 1..%d", c->flows,
			 PROBE_MAX_FLOWS);
	else if (c->recv_size > PROBE_MAX_MSG)
		snprintf(err, errlen, "receive size %u out of range 0..%u", c->recv_size,
			 PROBE_MAX_MSG);
	else if (c->msg_size > PROBE_MAX_MSG)
		snprintf(err, errlen, "message size %u out of range 1..%u", c->msg_size,
			 PROBE_MAX_MSG);
	else if (c->sndbuf > PROBE_MAX_BUF || c->rcvbuf > PROBE_MAX_BUF)
		snprintf(err, errlen, "socket buffer size out of range 0..%u", PROBE_MAX_BUF);
	else if (c->iter_min < 1 || c->iter_max < c->iter_min || c->iter_max > PROBE_MAX_ITER)
		snprintf(err, errlen, "iterations %u,%u: need 1 <= MIN <= MAX <= %d", c->iter_min,
			 c->iter_max, PROBE_MAX_ITER);
	else if (c->conf_level && !(c->conf_level >= 50 && c->conf_level < 100))
		snprintf(err, errlen, "confidence level %g%% out of range 50..99.99",
			 c->conf_level);
	else if (c->conf_level && !(c->conf_width > 0 && c->conf_width <= 1000))
		snprintf(err, errlen, "confidence width %g%% out of range 0..1000", c->conf_width);
	else if (c->cpu_local >= ncpu)
		snprintf(err, errlen, "local cpu %d does not exist (%ld CPUs)", c->cpu_local, ncpu);
	else if (c->bind_dev && !if_nametoindex(c->bind_dev))
		snprintf(err, errlen, "device '%s' does not exist", c->bind_dev);
	else
		return 0;
	return -EINVAL;
}

struct client_ctx {
	const struct probe_cfg *cfg;
	struct probe_result *res;
	const char *dev;
	struct dev_snap a;
	unsigned int iter;
};

static void client_mark(void *arg, int phase)
{
	struct client_ctx *c = arg;
	struct dev_snap b;

	if (!c->dev)
		return;
	if (phase == 0) {
		dev_snap(c->dev, &c->a);
		return;
	}
	dev_snap(c->dev, &b);
	dev_delta(&c->res->dev, c->dev, &c->a, &b);
	dev_snap_free(&c->a);
	dev_snap_free(&b);
}

static void client_progress(void *arg, double el, double total, double v)
{
	struct client_ctx *c = arg;

	if (c->cfg->progress)
		c->cfg->progress(c->cfg->progress_arg, c->iter, el, total, v);
}

/* Split "host:port", "[v6]:port", "v6" or "host". */
int probe_peer_split(const char *s, uint16_t defport, char *host, size_t hl, uint16_t *port)
{
	const char *c;
	uint32_t p;

	*port = defport;
	if (s[0] == '[') {
		c = strchr(s, ']');
		if (!c || (size_t)(c - s - 1) >= hl)
			return -EINVAL;
		snprintf(host, hl, "%.*s", (int)(c - s - 1), s + 1);
		if (c[1] == 0)
			return 0;
		if (c[1] != ':')
			return -EINVAL;
		c++;
	} else {
		c = strrchr(s, ':');
		if (c && strchr(s, ':') != c)
			c = NULL; /* bare IPv6 */
		snprintf(host, hl, "%.*s", c ? (int)(c - s) : (int)strlen(s), s);
		if (!c)
			return 0;
	}
	if (parse_u32(c + 1, &p) || p < 1 || p > 65535)
		return -EINVAL;
	*port = p;
	return 0;
}

/* Connect with a bounded wait. fd or -errno; err names the peer. */
static int connect_timeout(const struct sockaddr *sa, socklen_t sl, const struct eng_sockopts *so,
			   int timeout_ms, char *err, size_t errlen)
{
	struct pollfd p;
	int fd, r, e = 0;
	socklen_t el = sizeof(e);

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (so) {
		r = eng_sockopts(fd, so, err, errlen);
		if (r) {
			close(fd);
			return r;
		}
	}
	if (connect(fd, sa, sl) < 0 && errno != EINPROGRESS) {
		e = errno;
		goto fail;
	}
	p = (struct pollfd){ .fd = fd, .events = POLLOUT };
	r = poll(&p, 1, timeout_ms);
	if (r == 0) {
		e = ETIMEDOUT;
		goto fail;
	}
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el);
	if (e)
		goto fail;
	r = 0;
	ioctl(fd, FIONBIO, &r); /* data path and control use blocking I/O */
	return fd;
fail:
	close(fd);
	return -e;
}

static double iter_value(const struct probe_cfg *cfg, const struct eng *e,
			 const struct probe_side *remote, double *flow)
{
	const struct probe_side *rx = cfg->test == PROBE_STREAM ? remote : &e->res;
	double total = 0;
	unsigned int i;

	for (i = 0; i < cfg->flows; i++) {
		double v;

		if (cfg->test == PROBE_STREAM || cfg->test == PROBE_MAERTS)
			v = rx->elapsed_s > 0 ? rx->bytes[i] * 8 / rx->elapsed_s / 1e6 : 0;
		else
			v = e->res.elapsed_s > 0 ? e->res.trans[i] / e->res.elapsed_s : 0;
		flow[i] = v;
		total += v;
	}
	return total;
}

/* One iteration on an open control connection. */
static int run_iter(int ctl, const struct sockaddr_storage *peer, socklen_t pl,
		    struct client_ctx *cc, struct stats_hist *hist, double *flow, double *value)
{
	const struct probe_cfg *cfg = cc->cfg;
	struct probe_result *res = cc->res;
	char *err = res->err, e2[256];
	size_t el = sizeof(res->err);
	struct eng e = { .lfd = -1 };
	struct sockaddr_storage dp = *peer;
	uint32_t cookie;
	unsigned int i;
	json_t *m;
	int r, port;

	e.test = cfg->test;
	e.client = true;
	e.flows = cfg->flows;
	e.msg_size = cfg->msg_size;
	e.recv_size = cfg->recv_size;
	e.send = cfg->send;
	e.skip_rx_copy = cfg->skip_rx_copy;
	e.rcvlowat = cfg->rcvlowat;
	e.rx_poll_us = cfg->rx_poll_us;
	e.no_sample = cfg->no_sample;
	e.cpu = cfg->cpu_local;
	e.duration_s = cfg->duration_s;
	e.warmup_s = cfg->warmup_s;
	e.so.sndbuf = cfg->sndbuf;
	e.so.rcvbuf = cfg->rcvbuf;
	e.so.nodelay = cfg->nodelay;
	snprintf(e.so.cc, sizeof(e.so.cc), "%s", cfg->cc);
	e.so.bind_dev = cfg->bind_dev;
	e.mark = client_mark;
	e.mark_arg = cc;
	e.progress = client_progress;
	e.progress_arg = cc;
	e.end_window = cfg->end_window;
	if (eng_init(&e)) {
		snprintf(err, el, "out of memory");
		return -ENOMEM;
	}
	m = json_pack("{s:i,s:s,s:s,s:i,s:i,s:i,s:i,s:b,s:s,s:i,s:I,s:I}", "v", proto_version(),
		      "type", "setup", "test", probe_test_name(cfg->test), "flows", cfg->flows,
		      "msg-size", cfg->msg_size, "sndbuf", cfg->sndbuf, "rcvbuf", cfg->rcvbuf,
		      "nodelay", cfg->nodelay, "cc", cfg->cc, "cpu", cfg->cpu_remote, "duration-ms",
		      (json_int_t)llround(cfg->duration_s * 1000), "warmup-ms",
		      (json_int_t)llround(cfg->warmup_s * 1000));
	if (cfg->recv_size)
		json_object_set_new(m, "recv-size", json_integer(cfg->recv_size));
	/* only when asked for: a peer of an older version takes the setup as before */
	if (cfg->send != PROBE_SEND_COPY)
		json_object_set_new(m, "send", json_string(probe_send_name(cfg->send)));
	if (cfg->skip_rx_copy)
		json_object_set_new(m, "skip-rx-copy", json_true());
	if (cfg->rcvlowat)
		json_object_set_new(m, "rcvlowat", json_integer(cfg->rcvlowat));
	if (cfg->rx_poll_us)
		json_object_set_new(m, "rx-poll-usecs", json_integer(cfg->rx_poll_us));
	if (cfg->no_sample)
		json_object_set_new(m, "no-sample", json_true());
	r = proto_send(ctl, m);
	if (r)
		goto ctl_fail;
	r = proto_recv(ctl, 10000, PM_SETUP_OK, &m, e2, sizeof(e2));
	if (r < 0)
		goto peer_fail;
	port = json_integer_value(json_object_get(m, "data-port"));
	cookie = (uint32_t)json_integer_value(json_object_get(m, "cookie"));
	json_decref(m);
	if (dp.ss_family == AF_INET)
		((struct sockaddr_in *)&dp)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)&dp)->sin6_port = htons(port);
	e.peer = dp;
	e.peer_len = pl;
	e.cookie = cookie;
	if (cfg->test != PROBE_CRR) {
		for (i = 0; i < cfg->flows; i++) {
			uint32_t c[2] = { htonl(cookie), htonl(i) };

			r = connect_timeout((struct sockaddr *)&dp, pl, &e.so,
					    PROTO_HELLO_TIMEOUT_MS, e2, sizeof(e2));
			if (r < 0) {
				if (!e2[0])
					snprintf(e2, sizeof(e2), "data connection %u: %s", i,
						 strerror(-r));
				goto peer_fail;
			}
			e.fl[i].fd = r;
			if (send(r, c, sizeof(c), MSG_NOSIGNAL) != sizeof(c)) {
				r = -errno;
				snprintf(e2, sizeof(e2), "data connection %u: %s", i,
					 strerror(errno));
				goto peer_fail;
			}
		}
	}
	r = proto_recv(ctl, 15000, PM_READY, &m, e2, sizeof(e2));
	if (r < 0)
		goto peer_fail;
	json_decref(m);
	r = proto_send(ctl, proto_msg(PM_START));
	if (r)
		goto ctl_fail;
	r = eng_start(&e, e2, sizeof(e2));
	if (r)
		goto local_fail;
	r = eng_window(&e, ctl, e2, sizeof(e2));
	if (r) {
		eng_abort(&e);
		eng_finish(&e, e2 + strlen(e2), 0);
		if (r == -ECONNABORTED) {
			/* The peer said something mid-test: an error, or it went away. */
			r = proto_recv(ctl, 1000, PM_RESULT, &m, e2, sizeof(e2));
			if (r >= 0) {
				json_decref(m);
				snprintf(e2, sizeof(e2), "unexpected early result");
			} else if (r == -ECONNRESET) {
				snprintf(e2, sizeof(e2),
					 "closed the control connection mid-test (restarted or "
					 "killed?)");
			}
			r = -ECONNRESET;
		}
		goto peer_fail;
	}
	r = eng_finish(&e, e2, sizeof(e2));
	if (r) {
		snprintf(err, el, "peer %s: data connection failed mid-test (%.200s)", cfg->peer,
			 e2);
		r = -ECONNRESET;
		goto out;
	}
	r = proto_send(ctl, proto_msg(PM_STOP));
	if (r)
		goto ctl_fail;
	r = proto_recv(ctl, 15000, PM_RESULT, &m, e2, sizeof(e2));
	if (r < 0)
		goto peer_fail;
	eng_result_parse(m, &res->remote);
	devstats_parse(json_object_get(m, "dev-stats"),
		       json_string_value(json_object_get(m, "dev")), &res->remote_dev);
	json_decref(m);
	res->local = e.res;
	if (cfg->test == PROBE_STREAM || cfg->test == PROBE_RR)
		res->sender_ti = e.res.ti;
	else if (cfg->test == PROBE_MAERTS)
		res->sender_ti = res->remote.ti;
	hist_merge(hist, &e.hist);
	*value = iter_value(cfg, &e, &res->remote, flow);
	r = 0;
	goto out;
local_fail:
	snprintf(err, el, "%s", e2);
	goto out;
ctl_fail:
	snprintf(err, el, "peer %s: control connection: %s", cfg->peer, strerror(-r));
	goto out;
peer_fail:
	snprintf(err, el, "peer %s: %s", cfg->peer, e2);
out:
	eng_free(&e);
	return r;
}

/* The challenge in serve's hello, answered with our key; serve's own answer proves it holds the
 * same key. Both ends must agree on using one. 0, or -errno with one line in err. */
static int client_auth(int ctl, const char *peer, const struct auth_key *key, json_t *hello,
		       char *err, size_t el)
{
	const char *ch = json_string_value(json_object_get(hello, "challenge"));
	char ans[AUTH_HEX_LEN + 1], e2[256];
	json_t *m;
	int r;

	if (!ch && !key->set)
		return 0;
	if (!ch) {
		snprintf(err, el,
			 "peer %s does not ask for a key; start it with "
			 "'ethtune --key-file FILE serve'",
			 peer);
		return -EPERM;
	}
	if (!key->set) {
		snprintf(err, el,
			 "peer %s requires a key: give --key-file FILE (or set "
			 "ETHTUNE_KEY_FILE)",
			 peer);
		return -EACCES;
	}
	if (strlen(ch) != AUTH_HEX_LEN) {
		snprintf(err, el, "peer %s sent a malformed challenge", peer);
		return -EPROTO;
	}
	auth_answer(key, ch, "client", ans);
	m = proto_msg(PM_AUTH);
	json_object_set_new(m, "answer", json_string(ans));
	r = proto_call(ctl, m, PROTO_HELLO_TIMEOUT_MS, PM_AUTH, &m, e2, sizeof(e2));
	if (r < 0) {
		snprintf(err, el, "peer %s: %.200s", peer, e2[0] ? e2 : strerror(-r));
		return r;
	}
	r = auth_check(key, ch, "serve", json_string_value(json_object_get(m, "answer")));
	json_decref(m);
	if (!r) {
		snprintf(err, el,
			 "peer %s does not hold our key (its answer to the challenge is "
			 "wrong)",
			 peer);
		return -EACCES;
	}
	return 0;
}

int probe_run(const struct probe_cfg *cfg_in, struct probe_result *res)
{
	struct probe_cfg cfgv = *cfg_in, *cfg = &cfgv;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	struct eng_sockopts cso = { 0 };
	struct client_ctx cc = { .cfg = cfg, .res = res };
	struct sockaddr_storage peer;
	struct stats_hist *hist;
	struct auth_key key;
	socklen_t pl;
	char host[256], ps[8], e2[256] = "", dev[IFNAMSIZ];
	double flow[PROBE_MAX_FLOWS], flow_sum[PROBE_MAX_FLOWS] = { 0 };
	unsigned int n, i;
	json_t *m;
	int ctl, r;

	memset(res, 0, sizeof(*res));
	if (probe_cfg_check(cfg, res->err, sizeof(res->err)))
		return -EINVAL;
	cfg->msg_size = probe_msg_size(cfg);
	cfg->rcvlowat = probe_rcvlowat(cfg);
	cfg->rx_poll_us = probe_rx_poll_us(cfg);
	/* netperf: -i alone means -I 99,5; -I alone means -i 10,3 */
	if (cfg->iter_max > 1 && !cfg->conf_level) {
		cfg->conf_level = 99;
		cfg->conf_width = 5;
	}
	if (cfg->conf_level && cfg->iter_max == 1) {
		cfg->iter_min = 3;
		cfg->iter_max = 10;
	}
	if (probe_peer_split(cfg->peer, cfg->port, host, sizeof(host), &cfg->port)) {
		snprintf(res->err, sizeof(res->err), "peer '%s': not ADDR[:PORT]", cfg->peer);
		return -EINVAL;
	}
	key.set = false;
	if (cfg->key_file && auth_key_load(cfg->key_file, &key, res->err, sizeof(res->err)))
		return -EKEYREJECTED; /* not a usage error: the file is at fault */
	signal(SIGPIPE, SIG_IGN);
	snprintf(ps, sizeof(ps), "%u", cfg->port);
	r = getaddrinfo(host, ps, &hints, &ai);
	if (r) {
		snprintf(res->err, sizeof(res->err), "peer '%.200s': %s", host, gai_strerror(r));
		return -EINVAL;
	}
	memcpy(&peer, ai->ai_addr, ai->ai_addrlen);
	pl = ai->ai_addrlen;
	freeaddrinfo(ai);
	cso.bind_dev = cfg->bind_dev;
	ctl = connect_timeout((struct sockaddr *)&peer, pl, &cso, PROTO_HELLO_TIMEOUT_MS, e2,
			      sizeof(e2));
	if (ctl < 0) {
		if (ctl == -ECONNREFUSED)
			snprintf(res->err, sizeof(res->err),
				 "peer %s: connection refused (is 'ethtune serve' running there?)",
				 cfg->peer);
		else if (ctl == -ETIMEDOUT)
			snprintf(res->err, sizeof(res->err),
				 "peer %s: no answer within %d s (unreachable or filtered)",
				 cfg->peer, PROTO_HELLO_TIMEOUT_MS / 1000);
		else
			snprintf(res->err, sizeof(res->err), "peer %s: %s", cfg->peer,
				 e2[0] ? e2 : strerror(-ctl));
		return ctl;
	}
	m = proto_msg(PM_HELLO);
	json_object_set_new(m, "version", json_string(ETHTUNE_VERSION));
	r = proto_call(ctl, m, PROTO_HELLO_TIMEOUT_MS, PM_HELLO, &m, e2, sizeof(e2));
	if (r < 0) {
		if (r == -ETIMEDOUT)
			snprintf(res->err, sizeof(res->err),
				 "peer %s: no hello within %d s (not an ethtune serve?)", cfg->peer,
				 PROTO_HELLO_TIMEOUT_MS / 1000);
		else if (r == -EPROTONOSUPPORT)
			snprintf(res->err, sizeof(res->err), "peer %s: version mismatch: %s",
				 cfg->peer, e2);
		else
			snprintf(res->err, sizeof(res->err), "peer %s: %s", cfg->peer,
				 e2[0] ? e2 : strerror(-r));
		close(ctl);
		return r;
	}
	snprintf(res->peer_version, sizeof(res->peer_version), "%s",
		 json_string_value(json_object_get(m, "version")));
	r = client_auth(ctl, cfg->peer, &key, m, res->err, sizeof(res->err));
	json_decref(m);
	memset(&key, 0, sizeof(key));
	if (r) {
		close(ctl);
		return r;
	}
	if (cfg->bind_dev)
		snprintf(dev, sizeof(dev), "%s", cfg->bind_dev);
	else
		local_dev(ctl, dev, sizeof(dev));
	cc.dev = dev[0] ? dev : NULL;
	hist = calloc(1, sizeof(*hist));
	if (!hist) {
		close(ctl);
		return -ENOMEM;
	}
	srandom(time(NULL) ^ getpid());
	res->stop = PROBE_STOP_FIXED;
	for (n = 0; n < cfg->iter_max;) {
		double v = 0, mean;

		cc.iter = n + 1;
		r = run_iter(ctl, &peer, pl, &cc, hist, flow, &v);
		if (r)
			goto out;
		res->iter_value[n++] = v;
		for (i = 0; i < cfg->flows; i++)
			flow_sum[i] += flow[i];
		if (!cfg->conf_level) {
			if (n >= cfg->iter_min)
				break;
			continue;
		}
		res->ci_half = stats_ci_half(res->iter_value, n, cfg->conf_level, &mean);
		res->ci_width_pct = mean > 0 ? 200 * res->ci_half / mean : INFINITY;
		if (n >= cfg->iter_min && n >= 2 && res->ci_width_pct <= cfg->conf_width) {
			res->stop = PROBE_STOP_CONFIDENT;
			break;
		}
		if (n >= cfg->iter_max)
			res->stop = PROBE_STOP_MAX_ITER;
	}
	res->n_iter = n;
	stats_ci_half(res->iter_value, n, 95, &res->value);
	for (i = 0; i < cfg->flows; i++) {
		if (cfg->test == PROBE_STREAM || cfg->test == PROBE_MAERTS)
			res->flow_mbps[i] = flow_sum[i] / n;
		else
			res->flow_tps[i] = flow_sum[i] / n;
	}
	if (cfg->test == PROBE_STREAM || cfg->test == PROBE_MAERTS)
		res->mbps = res->value;
	else
		res->tps = res->value;
	if (hist->n) {
		res->have_lat = true;
		res->lat_samples = hist->n;
		hist_lat_us(hist, &res->lat);
	}
	proto_send(ctl, proto_msg(PM_BYE));
	r = 0;
out:
	free(hist);
	dev_snap_free(&cc.a);
	close(ctl);
	return r;
}

void probe_print_lat(const struct stats_lat *l, bool columns)
{
	if (!columns) {
		print_float(PRINT_ANY, "min-us", "latency us: min %.1f", l->min);
		print_float(PRINT_ANY, "mean-us", " mean %.1f", l->mean);
	}
	print_float(PRINT_ANY, "p50-us", columns ? " %8.1f" : " p50 %.1f", l->p50);
	print_float(PRINT_ANY, "p90-us", columns ? " %8.1f" : " p90 %.1f", l->p90);
	print_float(PRINT_ANY, "p99-us", columns ? " %8.1f" : " p99 %.1f", l->p99);
	print_float(PRINT_ANY, "p99.9-us", columns ? " %8.1f" : " p99.9 %.1f", l->p999);
	print_float(PRINT_ANY, "max-us", columns ? " %9.1f\n" : " max %.1f", l->max);
	if (columns) {
		print_float(PRINT_JSON, "min-us", NULL, l->min);
		print_float(PRINT_JSON, "mean-us", NULL, l->mean);
	}
}
