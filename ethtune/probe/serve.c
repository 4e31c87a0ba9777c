/* ethtune serve: the probe's peer daemon; one test session at a time, each in a child process. */
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

/* The client's answer to our challenge, then ours to prove we hold the key too. 0 or -errno,
 * the client told why. */
static int client_auth(int ctl, const char *challenge, const char *who)
{
	char err[256], ans[AUTH_HEX_LEN + 1];
	json_t *m;
	int r;

	r = proto_recv(ctl, PROTO_HELLO_TIMEOUT_MS, PM__COUNT, &m, err, sizeof(err));
	if (r >= 0 && r != PM_AUTH) {
		json_decref(m);
		snprintf(err, sizeof(err),
			 "this peer requires a key: run the client with "
			 "--key-file FILE");
		r = -EACCES;
	} else if (r >= 0) {
		bool ok = auth_check(&srv.key, challenge, "client",
				     json_string_value(json_object_get(m, "answer")));

		json_decref(m);
		if (!ok) {
			snprintf(err, sizeof(err),
				 "authentication failed: the client's key is "
				 "not this peer's");
			r = -EACCES;
		}
	}
	if (r == -ECONNRESET)
		snprintf(err, sizeof(err), "left without authenticating (no key?)");
	if (r < 0) {
		if (r != -ECONNRESET && r != -EREMOTEIO)
			send_error(ctl, r == -EACCES ? "auth" : "protocol", err);
		et_warn("client %s: %s", who, err);
		return r;
	}
	auth_answer(&srv.key, challenge, "serve", ans);
	m = proto_msg(PM_AUTH);
	json_object_set_new(m, "answer", json_string(ans));
	return proto_send(ctl, m);
}

/* A whole client session on the control connection: hello, iterations, bye. */
static int session(int ctl, const struct sockaddr_storage *peer)
{
	char who[64], err[256], challenge[AUTH_HEX_LEN + 1];
	struct utsname u;
	json_t *m;
	int r;

	addr_str(peer, who, sizeof(who));
	r = proto_recv(ctl, PROTO_HELLO_TIMEOUT_MS, PM_HELLO, &m, err, sizeof(err));
	if (r < 0) {
		if (r == -EPROTONOSUPPORT) {
			char m2[300];

			snprintf(m2, sizeof(m2),
				 "version mismatch: %.200s; run the same ethtune release on both "
				 "ends",
				 err);
			send_error(ctl, "version", m2);
		} else if (r != -ECONNRESET && r != -EREMOTEIO) {
			send_error(ctl, "protocol", err);
		}
		et_warn("client %s: %s", who, err);
		return 1;
	}
	json_decref(m);
	uname(&u);
	m = proto_msg(PM_HELLO);
	json_object_set_new(m, "version", json_string(ETHTUNE_VERSION));
	json_object_set_new(m, "kernel", json_string(u.release));
	json_object_set_new(m, "hostname", json_string(u.nodename));
	if (srv.key.set) {
		if (auth_challenge(challenge)) {
			json_decref(m);
			send_error(ctl, "internal", "no random challenge (getrandom failed)");
			return 1;
		}
		json_object_set_new(m, "challenge", json_string(challenge));
	}
	if (proto_send(ctl, m))
		return 1;
	if (srv.key.set && client_auth(ctl, challenge, who))
		return 1;
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
		if (!bind(fd, a->ai_addr, a->ai_addrlen) && !listen(fd, 64)) {
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

/* Sessions per minute from one client address: a fixed one-minute window per address. */
#define RATE_SLOTS 64
static struct rate_slot {
	char host[INET6_ADDRSTRLEN];
	int64_t since_ms;
	uint32_t n;
} rate[RATE_SLOTS];

static bool rate_exceeded(const struct sockaddr_storage *peer)
{
	char host[INET6_ADDRSTRLEN];
	int64_t now = et_now_ms();
	struct rate_slot *s = NULL, *old = &rate[0];
	int i;

	if (!srv.lim.max_per_minute)
		return false;
	addr_host(peer, host, sizeof(host));
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

/* Listen and serve sessions until SIGTERM/SIGINT (or, once, the first session's end). 0, or
 * -errno: cannot start, or (once) the session failed. */
int serve_run(const char *bind_addr, uint32_t port, bool once, const char *key_file,
	      const struct serve_limits *lim)
{
	pid_t child = 0;
	int child_rc = 0, lfd, r;
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
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		struct sockaddr_storage peer;
		socklen_t pl = sizeof(peer);
		int st, cfd;
		pid_t w;

		while (child > 0 && (w = waitpid(child, &st, WNOHANG)) > 0) {
			child_rc = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
			child = 0;
			if (once)
				goto done;
		}
		if (poll(&p, 1, 200) <= 0)
			continue;
		cfd = accept4(lfd, (struct sockaddr *)&peer, &pl, SOCK_CLOEXEC);
		if (cfd < 0)
			continue;
		/* A session that just said bye may still be exiting: give it a moment. */
		for (int k = 0; child > 0 && k < 100; k++) {
			if (waitpid(child, &st, WNOHANG) == child) {
				child_rc = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
				child = 0;
				if (once) {
					close(cfd);
					goto done;
				}
				break;
			}
			usleep(10000);
		}
		if (child > 0) {
			send_error(cfd, "busy", "peer is busy with another test; try again later");
			close(cfd);
			continue;
		}
		if (rate_exceeded(&peer)) {
			char m[160];

			addr_str(&peer, who, sizeof(who));
			snprintf(m, sizeof(m),
				 "too many sessions: this peer allows %u a minute "
				 "from one address (serve --max-rate)",
				 srv.lim.max_per_minute);
			send_error(cfd, "limit", m);
			et_warn("client %s: %s", who, m);
			close(cfd);
			continue;
		}
		child = fork();
		if (child == 0) {
			close(lfd);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			_exit(session(cfd, &peer));
		}
		if (child < 0) {
			et_warn("fork: %s", strerror(errno));
			child = 0;
		}
		close(cfd);
	}
done:
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	close(lfd);
	return once && child_rc ? -EIO : 0;
}
