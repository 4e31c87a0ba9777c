/* ethtune serve: the probe's peer daemon; handshakes side by side, one session at a time. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/ethtune.h"
#include "out/json_print.h"
#include "probe/auth.h"
#include "probe/probe_int.h"

#include <cap-ng.h>
#include <linux/landlock.h>

#ifndef LANDLOCK_ACCESS_FS_TRUNCATE /* ABI 3 (Linux 6.2); older headers lack it */
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

static volatile sig_atomic_t serve_quit;

/* What this serve grants, and its key; set before the first fork, read by the sessions. */
static struct {
	struct serve_limits lim;
	struct auth_key key;
} srv;

void serve_limits_init(struct serve_limits *l)
{
	l->max_duration_s = 3600;
	l->max_flows = 128;
	l->max_msg_size = PROBE_MAX_MSG;
	l->max_per_minute = 600;
}

static void on_term(int sig __attribute__((unused)))
{
	serve_quit = 1;
}

/* A peer's address without its port (what the rate limit counts by) into buf; its port. */
static int addr_host(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	const void *a = ss->ss_family == AF_INET
				? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
				: (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;

	if (!inet_ntop(ss->ss_family, a, buf, len))
		snprintf(buf, len, "?");
	return ss->ss_family == AF_INET ? ntohs(((const struct sockaddr_in *)ss)->sin_port)
					: ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

static void addr_str(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char h[INET6_ADDRSTRLEN];
	int port = addr_host(ss, h, sizeof(h));

	if (ss->ss_family == AF_INET)
		snprintf(buf, len, "%s:%d", h, port);
	else
		snprintf(buf, len, "[%s]:%d", h, port);
}

static void send_error(int fd, const char *code, const char *msg)
{
	json_t *m = proto_msg(PM_ERROR);

	json_object_set_new(m, "msg", json_string(msg));
	if (code)
		json_object_set_new(m, "code", json_string(code));
	proto_send(fd, m);
}

/* Accept the n data connections of a session; each names its flow after the cookie. */
static int accept_flows(struct eng *e, int ctl, uint32_t cookie, char *err, size_t errlen)
{
	int64_t deadline = et_now_ms() + 10000;
	unsigned int got = 0;

	while (got < e->flows) {
		struct pollfd p[2] = { { .fd = e->lfd, .events = POLLIN },
				       { .fd = ctl, .events = POLLIN } };
		int64_t left = deadline - et_now_ms();
		uint32_t c[2];
		ssize_t n;
		int fd;

		if (left <= 0 || poll(p, 2, (int)left) <= 0) {
			snprintf(err, errlen, "only %u of %u data connections arrived within 10 s",
				 got, e->flows);
			return -ETIMEDOUT;
		}
		if (p[1].revents) {
			snprintf(err, errlen, "client left during data connection setup");
			return -ECONNRESET;
		}
		fd = accept4(e->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		p[0].fd = fd;
		n = poll(p, 1, 5000) > 0 ? recv(fd, c, sizeof(c), MSG_WAITALL) : -1;
		if (n != sizeof(c) || ntohl(c[0]) != cookie || ntohl(c[1]) >= e->flows ||
		    e->fl[ntohl(c[1])].fd >= 0) {
			close(fd); /* a stray or duplicate connection */
			continue;
		}
		e->fl[ntohl(c[1])].fd = fd;
		got++;
	}
	return 0;
}

struct serve_mark {
	char dev[32];
	struct dev_snap a;
	struct probe_devstats d;
};

static void serve_mark(void *arg, int phase)
{
	struct serve_mark *m = arg;
	struct dev_snap b;

	if (phase == 0) {
		dev_snap(m->dev, &m->a);
		return;
	}
	dev_snap(m->dev, &b);
	dev_delta(&m->d, m->dev, &m->a, &b);
	dev_snap_free(&m->a);
	dev_snap_free(&b);
}

/* One iteration: setup has been validated. 0 or -errno (error already sent to the client). */
static int session_iter(int ctl, json_t *setup, const char *who)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct eng e = { .lfd = -1 };
	struct eng_sockopts so2;
	struct serve_mark mk = { 0 };
	char err[256] = "";
	json_t *m;
	const char *test = json_string_value(json_object_get(setup, "test"));
	int64_t run_ms = json_integer_value(json_object_get(setup, "duration-ms")) +
			 json_integer_value(json_object_get(setup, "warmup-ms"));
	uint32_t cookie;
	unsigned int i;
	int r, one = 1;

	probe_test_parse(test, &e.test);
	e.client = false;
	e.ctl_ends_window = true;
	e.flows = json_integer_value(json_object_get(setup, "flows"));
	e.msg_size = json_integer_value(json_object_get(setup, "msg-size"));
	e.recv_size = json_integer_value(json_object_get(setup, "recv-size")); /* 0 if absent */
	if (json_object_get(setup, "send"))
		probe_send_parse(json_string_value(json_object_get(setup, "send")), &e.send);
	e.skip_rx_copy = json_is_true(json_object_get(setup, "skip-rx-copy"));
	e.rcvlowat = json_integer_value(json_object_get(setup, "rcvlowat")); /* 0 if absent */
	e.rx_poll_us =
		json_integer_value(json_object_get(setup, "rx-poll-usecs")); /* 0 if absent */
	e.no_sample = json_is_true(json_object_get(setup, "no-sample"));
	e.cpu = json_integer_value(json_object_get(setup, "cpu"));
	e.duration_s = json_integer_value(json_object_get(setup, "duration-ms")) / 1000.0;
	e.warmup_s = json_integer_value(json_object_get(setup, "warmup-ms")) / 1000.0;
	e.so.sndbuf = json_integer_value(json_object_get(setup, "sndbuf"));
	e.so.rcvbuf = json_integer_value(json_object_get(setup, "rcvbuf"));
	e.so.nodelay = json_is_true(json_object_get(setup, "nodelay"));
	snprintf(e.so.cc, sizeof(e.so.cc), "%s", json_string_value(json_object_get(setup, "cc")));
	r = -EPERM;
	if (run_ms > (int64_t)srv.lim.max_duration_s * 1000) {
		snprintf(err, sizeof(err),
			 "a run of %.1f s (warmup included) exceeds this peer's "
			 "limit of %u s (serve --max-duration)",
			 run_ms / 1000.0, srv.lim.max_duration_s);
		goto out_err;
	}
	if (e.flows > srv.lim.max_flows) {
		snprintf(err, sizeof(err),
			 "%u flows exceed this peer's limit of %u "
			 "(serve --max-flows)",
			 e.flows, srv.lim.max_flows);
		goto out_err;
	}
	if (e.msg_size > srv.lim.max_msg_size || e.recv_size > srv.lim.max_msg_size) {
		snprintf(err, sizeof(err),
			 "a message of %u bytes exceeds this peer's limit of %u "
			 "(serve --max-msg-size)",
			 e.msg_size > e.recv_size ? e.msg_size : e.recv_size, srv.lim.max_msg_size);
		goto out_err;
	}
	/* Only connections that present this session's cookie become its flows. */
	if (getrandom(&cookie, sizeof(cookie), 0) != sizeof(cookie)) {
		snprintf(err, sizeof(err), "getrandom: %s", strerror(errno));
		r = -EIO;
		goto out_err;
	}
	if (e.cpu >= 0 && e.cpu >= sysconf(_SC_NPROCESSORS_CONF)) {
		snprintf(err, sizeof(err), "remote cpu %d does not exist on the peer", e.cpu);
		r = -EINVAL;
		goto out_err;
	}
	local_dev(ctl, mk.dev, sizeof(mk.dev));
	if (mk.dev[0]) {
		e.mark = serve_mark;
		e.mark_arg = &mk;
		e.devstats = &mk.d;
	}
	r = eng_init(&e);
	if (r) {
		snprintf(err, sizeof(err), "out of memory");
		goto out_err;
	}
	/* Data listener on the address the client reached us at. */
	getsockname(ctl, (struct sockaddr *)&ss, &sl);
	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = 0;
	e.lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (e.lfd < 0 || setsockopt(e.lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0) {
		snprintf(err, sizeof(err), "data socket: %s", strerror(errno));
		r = -errno;
		goto out_err;
	}
	r = eng_sockopts(e.lfd, &e.so, err, sizeof(err));
	if (r)
		goto out_err;
	if (bind(e.lfd, (struct sockaddr *)&ss, sl) < 0 ||
	    listen(e.lfd, e.test == PROBE_CRR ? 4096 : (int)e.flows + 16) < 0) {
		snprintf(err, sizeof(err), "data socket: %s", strerror(errno));
		r = -errno;
		goto out_err;
	}
	sl = sizeof(ss);
	getsockname(e.lfd, (struct sockaddr *)&ss, &sl);
	m = proto_msg(PM_SETUP_OK);
	json_object_set_new(m, "cookie", json_integer(cookie));
	json_object_set_new(m, "data-port",
			    json_integer(ntohs(ss.ss_family == AF_INET
						       ? ((struct sockaddr_in *)&ss)->sin_port
						       : ((struct sockaddr_in6 *)&ss)->sin6_port)));
	r = proto_send(ctl, m);
	if (r)
		goto out;
	e.cookie = cookie;
	if (e.test != PROBE_CRR) {
		r = accept_flows(&e, ctl, cookie, err, sizeof(err));
		if (r)
			goto out_err;
		close(e.lfd);
		e.lfd = -1;
		so2 = e.so;
		so2.sndbuf = so2.rcvbuf = 0;
		for (i = 0; i < e.flows; i++) {
			r = eng_sockopts(e.fl[i].fd, &so2, err, sizeof(err));
			if (r)
				goto out_err;
		}
	}
	r = proto_send(ctl, proto_msg(PM_READY));
	if (r)
		goto out;
	r = proto_recv(ctl, PROTO_IDLE_TIMEOUT_MS, PM_START, &m, err, sizeof(err));
	if (r < 0)
		goto out_log;
	json_decref(m);
	r = eng_start(&e, err, sizeof(err));
	if (r)
		goto out_err;
	r = eng_window(&e, ctl, err, sizeof(err));
	if (r) {
		eng_abort(&e);
		eng_finish(&e, err + strlen(err), 0);
		goto out_err;
	}
	r = proto_recv(ctl, PROTO_IDLE_TIMEOUT_MS + (int)(e.duration_s * 1000), PM_STOP, &m, err,
		       sizeof(err));
	if (r < 0) {
		eng_abort(&e);
		eng_finish(&e, err + strlen(err), 0);
		goto out_log;
	}
	json_decref(m);
	r = eng_finish(&e, err, sizeof(err));
	if (r)
		goto out_err;
	r = proto_send(ctl, eng_result_msg(&e));
	goto out;
out_err:
	send_error(ctl, NULL, err);
out_log:
	et_warn("client %s: %s", who, err);
	if (!r)
		r = -EIO;
out:
	if (e.lfd >= 0)
		close(e.lfd);
	dev_snap_free(&mk.a);
	eng_free(&e);
	return r;
}

/* A whole session on a control connection whose handshake the parent has done: iterations, bye. */
static int session(int ctl, const char *who)
{
	char err[256];
	json_t *m;
	int r;

	for (;;) {
		r = proto_recv(ctl, PROTO_IDLE_TIMEOUT_MS, PM__COUNT, &m, err, sizeof(err));
		if (r < 0) {
			if (r != -ECONNRESET && r != -EREMOTEIO && r != -ETIMEDOUT)
				send_error(ctl, "protocol", err);
			et_warn("client %s: %s", who, err);
			return 1;
		}
		if (r == PM_BYE) {
			json_decref(m);
			return 0;
		}
		if (r != PM_SETUP) {
			snprintf(err, sizeof(err), "unexpected '%s' message", proto_type_name(r));
			send_error(ctl, "protocol", err);
			et_warn("client %s: %s", who, err);
			json_decref(m);
			return 1;
		}
		r = session_iter(ctl, m, who);
		json_decref(m);
		if (r)
			return 1;
	}
}

static int serve_listen(const char *bind_addr, uint16_t port, char *shown, size_t len)
{
	/* an address, never a name: what serve listens on does not depend on DNS */
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICHOST };
	struct addrinfo *ai = NULL, *a;
	char ps[8];
	int fd = -1, one = 1, zero = 0, r;

	snprintf(ps, sizeof(ps), "%u", port);
	if (!bind_addr)
		hints.ai_family = AF_INET6;
	r = getaddrinfo(bind_addr, ps, &hints, &ai);
	if (r && !bind_addr) {
		hints.ai_family = AF_INET;
		r = getaddrinfo(NULL, ps, &hints, &ai);
	}
	if (r) {
		et_err("bind address '%s' is not an IPv4 or IPv6 address (or 'any')",
		       bind_addr ? bind_addr : "any");
		return -EINVAL;
	}
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (a->ai_family == AF_INET6 && !bind_addr)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		/* a deep queue: a flood of connections waits there, not in SYN retries, until
		 * serve takes each one and judges it by its address */
		if (!bind(fd, a->ai_addr, a->ai_addrlen) && !listen(fd, 1024)) {
			addr_str((struct sockaddr_storage *)a->ai_addr, shown, len);
			break;
		}
		r = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		et_err("cannot listen on %s port %u: %s", bind_addr ? bind_addr : "any", port,
		       strerror(-r));
	return fd;
}

/* Root is not needed once the socket is bound: run as nobody with CAP_NET_ADMIN alone (forced
 * socket buffers, any congestion control), and let nothing regain more. 0 or -errno. */
static int drop_privileges(char *who, size_t len)
{
	struct passwd *pw;
	uid_t uid = 65534;
	gid_t gid = 65534;

	snprintf(who, len, "uid %u", (unsigned int)geteuid());
	if (geteuid() != 0)
		return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ? -errno : 0;
	pw = getpwnam("nobody");
	if (pw) {
		uid = pw->pw_uid;
		gid = pw->pw_gid;
	}
	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_NET_ADMIN) ||
	    capng_change_id(uid, gid, CAPNG_DROP_SUPP_GRP | CAPNG_CLEAR_BOUNDING))
		return -EPERM;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	snprintf(who, len, "uid %u with CAP_NET_ADMIN only", (unsigned int)uid);
	return 0;
}

/* Once it listens, serve touches no files: a Landlock domain lets it read /proc and /sys (CPU,
 * interrupt and device counters) and nothing else, and write nowhere. A kernel without Landlock
 * keeps the privilege drop alone. 0 (what holds is in who), or -errno. */
static int sandbox_files(char *who, size_t len)
{
	static const char *const readable[] = { "/proc", "/sys" };
	struct landlock_ruleset_attr ra = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
				     LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
				     LANDLOCK_ACCESS_FS_REMOVE_DIR |
				     LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
				     LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
				     LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
				     LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM,
	};
	struct landlock_path_beneath_attr pb = {
		.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR,
	};
	size_t off = strlen(who);
	unsigned int i;
	int abi, fd, r = 0;

	abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 0) {
		if (errno != ENOSYS && errno != EOPNOTSUPP)
			return -errno;
		snprintf(who + off, len - off, "; no Landlock here, files as that user may");
		return 0;
	}
	if (abi >= 2)
		ra.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		ra.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	fd = (int)syscall(SYS_landlock_create_ruleset, &ra, sizeof(ra), 0);
	if (fd < 0)
		return -errno;
	for (i = 0; i < sizeof(readable) / sizeof(readable[0]) && !r; i++) {
		pb.parent_fd = open(readable[i], O_PATH | O_CLOEXEC);
		if (pb.parent_fd < 0)
			continue; /* not mounted: nothing there to read */
		if (syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0))
			r = -errno;
		close(pb.parent_fd);
	}
	if (!r && syscall(SYS_landlock_restrict_self, fd, 0))
		r = -errno;
	close(fd);
	if (!r)
		snprintf(who + off, len - off,
			 "; files: /proc and /sys read-only (Landlock ABI %d)", abi);
	return r;
}

/* Connections a minute from one client address, each a session or a try at one: a fixed
 * one-minute window per address. */
#define RATE_SLOTS 64
static struct rate_slot {
	char host[INET6_ADDRSTRLEN];
	int64_t since_ms;
	uint32_t n;
} rate[RATE_SLOTS];

static bool rate_exceeded(const char *host)
{
	int64_t now = et_now_ms();
	struct rate_slot *s = NULL, *old = &rate[0];
	int i;

	if (!srv.lim.max_per_minute)
		return false;
	for (i = 0; i < RATE_SLOTS && !s; i++) {
		if (!strcmp(rate[i].host, host))
			s = &rate[i];
		else if (rate[i].since_ms < old->since_ms)
			old = &rate[i];
	}
	if (!s || now - s->since_ms >= 60000) {
		if (!s) {
			s = old;
			snprintf(s->host, sizeof(s->host), "%s", host);
		}
		s->since_ms = now;
		s->n = 0;
	}
	return ++s->n > srv.lim.max_per_minute;
}

/*
 * Handshakes. A connection holds no session until it has proved itself: its hello and, with a
 * key, its answer to our challenge must be whole within HS_DEADLINE_MS of its connect. Until then
 * it is one of at most HS_MAX entries here, HS_PER_ADDR of them from one address, read by the
 * parent as its bytes come, so that no stranger, however slow or many, keeps a client that
 * holds the key (or, without a key, one that completes its hello) from being served.
 */
#define HS_DEADLINE_MS 3000
#define HS_MAX	       64
#define HS_PER_ADDR    8
/* A client done with its handshake while a session runs waits this long for the session to end
 * (one whose client just said bye may still be exiting), then is told the peer is busy. */
#define HS_WAIT_MS 1000
#define BUSY_MSG   "peer is busy with another test; try again later"

enum hs_state { HS_FREE, HS_HELLO, HS_AUTH, HS_DONE };

static struct hs {
	enum hs_state st;
	int fd;
	char host[INET6_ADDRSTRLEN]; /* what the share and the rate limit count by */
	char who[INET6_ADDRSTRLEN + 8];
	int64_t since_ms, deadline_ms;
	struct proto_rx rx;
	char challenge[AUTH_HEX_LEN + 1];
} hs[HS_MAX];

/* Why a connection ended without a session. */
enum drop { DROP_LATE, DROP_OVERSIZE, DROP_CROWDED, DROP_CLOSED, DROP_REFUSED, DROP_RATE, DROP__N };
static const char *const drop_name[DROP__N] = {
	[DROP_LATE] = "past the deadline", [DROP_OVERSIZE] = "oversized",
	[DROP_CROWDED] = "crowded out",	   [DROP_CLOSED] = "closed early",
	[DROP_REFUSED] = "refused",	   [DROP_RATE] = "over --max-rate",
};
static uint64_t drops[DROP__N];

/* Count a drop and log it with the address: a refusal (the protocol, the key) always, as a
 * client's mistake its operator needs to see; what strangers do (silence, junk, crowds, a rate)
 * at -v. */
static void drop_count(const char *who, enum drop why, const char *msg)
{
	drops[why]++;
	if (why == DROP_REFUSED || et_opts.verbose)
		et_warn("client %s: %s; dropped (%llu %s)", who, msg,
			(unsigned long long)drops[why], drop_name[why]);
}

static void hs_close(struct hs *h)
{
	proto_rx_free(&h->rx);
	close(h->fd);
	h->fd = -1;
	h->st = HS_FREE;
}

/* End a handshake without a session, telling the client why when code is set. */
static void hs_drop(struct hs *h, enum drop why, const char *code, const char *msg)
{
	if (code)
		send_error(h->fd, code, msg); /* a small reply to a fresh socket: no wait */
	drop_count(h->who, why, msg);
	hs_close(h);
}

/* A slot for a connection from host: a free one, unless host has its share (then its oldest
 * connection here goes) or the table is full (then the oldest of all goes). A finished handshake
 * that waits for the session counts too: without a key anyone can finish one. */
static struct hs *hs_slot(const char *host)
{
	struct hs *free_slot = NULL, *oldest = NULL, *oldest_here = NULL;
	char m[128];
	int i, here = 0;

	for (i = 0; i < HS_MAX; i++) {
		struct hs *h = &hs[i];

		if (h->st == HS_FREE) {
			free_slot = free_slot ? free_slot : h;
			continue;
		}
		if (!oldest || h->since_ms < oldest->since_ms)
			oldest = h;
		if (!strcmp(h->host, host)) {
			here++;
			if (!oldest_here || h->since_ms < oldest_here->since_ms)
				oldest_here = h;
		}
	}
	if (here >= HS_PER_ADDR) {
		snprintf(m, sizeof(m), "more than %d handshakes at once from one address",
			 HS_PER_ADDR);
		hs_drop(oldest_here, DROP_CROWDED, "busy", m);
		return oldest_here;
	}
	if (free_slot)
		return free_slot;
	snprintf(m, sizeof(m), "more than %d handshakes at once", HS_MAX);
	hs_drop(oldest, DROP_CROWDED, "busy", m);
	return oldest;
}

/* Take every connection that waits: each counts against its address's rate, then holds a
 * handshake slot. */
static void hs_accept(int lfd)
{
	for (;;) {
		struct sockaddr_storage peer;
		socklen_t pl = sizeof(peer);
		char host[INET6_ADDRSTRLEN], who[sizeof(hs[0].who)], m[160];
		struct hs *h;
		int fd;

		fd = accept4(lfd, (struct sockaddr *)&peer, &pl, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return; /* none left (EAGAIN), or none to be had now: poll says when */
		}
		addr_host(&peer, host, sizeof(host));
		addr_str(&peer, who, sizeof(who));
		if (rate_exceeded(host)) {
			snprintf(m, sizeof(m),
				 "too many connections: this peer allows %u a minute "
				 "from one address (serve --max-rate)",
				 srv.lim.max_per_minute);
			send_error(fd, "limit", m);
			drop_count(who, DROP_RATE, m);
			close(fd);
			continue;
		}
		h = hs_slot(host);
		*h = (struct hs){ .st = HS_HELLO, .fd = fd, .since_ms = et_now_ms() };
		h->deadline_ms = h->since_ms + HS_DEADLINE_MS;
		snprintf(h->host, sizeof(h->host), "%s", host);
		snprintf(h->who, sizeof(h->who), "%s", who);
	}
}

/* serve's hello; with a challenge where serve has a key. */
static json_t *hello_msg(const char *challenge)
{
	struct utsname u;
	json_t *m = proto_msg(PM_HELLO);

	uname(&u);
	json_object_set_new(m, "version", json_string(ETHTUNE_VERSION));
	json_object_set_new(m, "kernel", json_string(u.release));
	json_object_set_new(m, "hostname", json_string(u.nodename));
	if (challenge)
		json_object_set_new(m, "challenge", json_string(challenge));
	return m;
}

/* The client's hello; with a key, serve's hello and challenge go back at once. Without one the
 * handshake is done, and serve's hello waits for the session (or the peer is busy instead). */
static void hs_hello(struct hs *h, int r, json_t *m, const char *err)
{
	char m2[300];

	if (r == -EPROTONOSUPPORT) {
		snprintf(m2, sizeof(m2),
			 "version mismatch: %.200s; run the same ethtune release on both ends",
			 err);
		hs_drop(h, DROP_REFUSED, "version", m2);
		return;
	}
	if (r < 0) {
		hs_drop(h, DROP_REFUSED, r == -EREMOTEIO ? NULL : "protocol", err);
		return;
	}
	json_decref(m);
	if (!srv.key.set) {
		h->st = HS_DONE;
		h->deadline_ms = et_now_ms() + HS_WAIT_MS;
		return;
	}
	if (auth_challenge(h->challenge)) {
		hs_drop(h, DROP_REFUSED, "internal", "no random challenge (getrandom failed)");
		return;
	}
	if (proto_send(h->fd, hello_msg(h->challenge))) {
		hs_drop(h, DROP_CLOSED, NULL, "left before serve's hello");
		return;
	}
	h->st = HS_AUTH;
}

/* The client's answer to our challenge. Ours, which proves we hold the key too, waits for the
 * session (or the peer is busy instead). */
static void hs_auth(struct hs *h, int r, json_t *m, const char *err)
{
	bool ok;

	if (r >= 0 && r != PM_AUTH) {
		json_decref(m);
		hs_drop(h, DROP_REFUSED, "auth",
			"this peer requires a key: run the client with --key-file FILE");
		return;
	}
	if (r < 0) {
		hs_drop(h, DROP_REFUSED, r == -EREMOTEIO ? NULL : "protocol", err);
		return;
	}
	ok = auth_check(&srv.key, h->challenge, "client",
			json_string_value(json_object_get(m, "answer")));
	json_decref(m);
	if (!ok) {
		hs_drop(h, DROP_REFUSED, "auth",
			"authentication failed: the client's key is not this peer's");
		return;
	}
	h->st = HS_DONE;
	h->deadline_ms = et_now_ms() + HS_WAIT_MS;
}

/* What has arrived on a handshake: at most one message is taken, so that nothing of what
 * follows the handshake (the first setup) is read here; poll reports the rest. */
static void hs_input(struct hs *h)
{
	char err[256];
	json_t *m;
	int r;

	r = proto_rx_read(h->fd, &h->rx, err, sizeof(err));
	if (r == 0)
		return;
	if (r < 0) {
		if (r == -EMSGSIZE)
			hs_drop(h, DROP_OVERSIZE, "protocol", err);
		else if (r == -ECONNRESET)
			hs_drop(h, DROP_CLOSED, NULL,
				h->st == HS_AUTH ? "left without authenticating (no key?)" : err);
		else
			hs_drop(h, DROP_REFUSED, "protocol", err);
		return;
	}
	r = proto_rx_take(&h->rx, h->st == HS_HELLO ? PM_HELLO : PM__COUNT, &m, err, sizeof(err));
	if (h->st == HS_HELLO)
		hs_hello(h, r, m, err);
	else
		hs_auth(h, r, m, err);
}

/* The handshake's last answer (serve's hello, or its answer to the challenge), then a session
 * in a child process. The child's pid, or 0 (the client left, or no fork). */
static pid_t hs_start(struct hs *h, int lfd)
{
	char ans[AUTH_HEX_LEN + 1];
	json_t *m;
	pid_t pid;
	int i;

	if (srv.key.set) {
		auth_answer(&srv.key, h->challenge, "serve", ans);
		m = proto_msg(PM_AUTH);
		json_object_set_new(m, "answer", json_string(ans));
	} else {
		m = hello_msg(NULL);
	}
	if (proto_send(h->fd, m)) {
		hs_drop(h, DROP_CLOSED, NULL, "left before its session started");
		return 0;
	}
	pid = fork();
	if (pid == 0) {
		close(lfd);
		for (i = 0; i < HS_MAX; i++)
			if (hs[i].st != HS_FREE && &hs[i] != h)
				close(hs[i].fd);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		fcntl(h->fd, F_SETFL, fcntl(h->fd, F_GETFL) & ~O_NONBLOCK);
		_exit(session(h->fd, h->who));
	}
	if (pid < 0) {
		et_warn("fork: %s", strerror(errno));
		send_error(h->fd, "internal", "serve cannot start a session (fork failed)");
		pid = 0;
	}
	hs_close(h);
	return pid;
}

/* The finished handshake that has waited longest for the session, or NULL. */
static struct hs *hs_next_done(void)
{
	struct hs *d = NULL;
	int i;

	for (i = 0; i < HS_MAX; i++)
		if (hs[i].st == HS_DONE && (!d || hs[i].since_ms < d->since_ms))
			d = &hs[i];
	return d;
}

/* End what ran out of time: a handshake at its deadline, and a finished one that has waited its
 * while for a session that did not end (it is told the peer is busy). */
static void hs_expire(int64_t now)
{
	char m[128];
	int i;

	for (i = 0; i < HS_MAX; i++) {
		struct hs *h = &hs[i];

		if (h->st == HS_FREE || h->deadline_ms > now)
			continue;
		if (h->st == HS_DONE) {
			send_error(h->fd, "busy", BUSY_MSG);
			hs_close(h);
			continue;
		}
		snprintf(m, sizeof(m),
			 "no complete '%s' message within %d ms (the handshake's deadline)",
			 h->st == HS_HELLO ? "hello" : "auth", HS_DEADLINE_MS);
		hs_drop(h, DROP_LATE, "protocol", m);
	}
}

/* The handshakes to read, from pfd[1] on (their entries in ph), and how long poll may wait: until
 * the next deadline, or briefly while a finished one waits for the session to end. The count. */
static int hs_poll_set(struct pollfd *pfd, struct hs **ph, int64_t now, int *wait_ms)
{
	int64_t wake = now + 200;
	int i, n = 1;

	for (i = 0; i < HS_MAX; i++) {
		struct hs *h = &hs[i];

		if (h->st == HS_FREE)
			continue;
		if (h->st == HS_DONE) {
			wake = now + 10 < wake ? now + 10 : wake;
			continue;
		}
		wake = h->deadline_ms < wake ? h->deadline_ms : wake;
		pfd[n] = (struct pollfd){ .fd = h->fd, .events = POLLIN };
		ph[n++] = h;
	}
	*wait_ms = (int)(wake - now);
	return n;
}

static void drops_report(void)
{
	char line[400];
	size_t off = 0;
	uint64_t all = 0;
	int i;

	for (i = 0; i < DROP__N; i++) {
		all += drops[i];
		off += snprintf(line + off, sizeof(line) - off, "%s%llu %s", i ? ", " : "",
				(unsigned long long)drops[i], drop_name[i]);
	}
	if (all)
		et_info("ethtune serve: connections dropped before a session: %s", line);
}

/* Listen and serve sessions until SIGTERM/SIGINT (or, once, the first session's end). 0, or
 * -errno: cannot start, or (once) the session failed. */
int serve_run(const char *bind_addr, uint32_t port, bool once, const char *key_file,
	      const struct serve_limits *lim)
{
	pid_t child = 0;
	int child_rc = 0, lfd, r, i;
	char shown[80], err[256], who[160];
	struct sigaction sa = { .sa_handler = on_term };

	srv.lim = *lim;
	/* The key is read while we may still be root: it may be readable by root alone. */
	if (key_file && auth_key_load(key_file, &srv.key, err, sizeof(err))) {
		et_err("%s", err);
		return -EINVAL;
	}
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (bind_addr && !strcmp(bind_addr, "any"))
		bind_addr = NULL;
	else if (!bind_addr)
		bind_addr = "127.0.0.1";
	lfd = serve_listen(bind_addr, port, shown, sizeof(shown));
	if (lfd < 0)
		return -EADDRNOTAVAIL;
	fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK); /* accept until none is left */
	r = drop_privileges(who, sizeof(who));
	if (r) {
		et_err("cannot drop privileges: %s", strerror(-r));
		close(lfd);
		return r;
	}
	json_object_seed(0); /* jansson reads /dev/urandom for it on first use: now, not later */
	r = sandbox_files(who, sizeof(who));
	if (r) {
		et_err("cannot confine file access (Landlock): %s", strerror(-r));
		close(lfd);
		return r;
	}
	print_text("ethtune serve: listening on %s as %s, %s\n", shown, who,
		   srv.key.set ? "clients must hold the key" : "no key (any client is served)");
	fflush(stdout);
	while (!serve_quit) {
		struct pollfd pfd[HS_MAX + 1];
		struct hs *ph[HS_MAX + 1], *h;
		int64_t now;
		int st, n, wait_ms;

		if (child > 0 && waitpid(child, &st, WNOHANG) == child) {
			child_rc = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
			child = 0;
			if (once)
				break;
		}
		while (!child && (h = hs_next_done()))
			child = hs_start(h, lfd);
		now = et_now_ms();
		hs_expire(now);
		n = hs_poll_set(pfd, ph, now, &wait_ms);
		pfd[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		if (poll(pfd, n, wait_ms) <= 0)
			continue;
		for (i = 1; i < n; i++)
			if (pfd[i].revents)
				hs_input(ph[i]);
		if (pfd[0].revents)
			hs_accept(lfd);
	}
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	for (i = 0; i < HS_MAX; i++)
		if (hs[i].st != HS_FREE)
			hs_close(&hs[i]);
	close(lfd);
	drops_report();
	return once && child_rc ? -EIO : 0;
}
