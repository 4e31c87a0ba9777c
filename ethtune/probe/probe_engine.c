/* Probe data path: one thread per flow on each end; stream, maerts, rr and crr workers. */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <linux/errqueue.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "probe/probe_int.h"
#include "util/ethtune.h"

#define LOAD(x)	    __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

int eng_sockopts(int fd, const struct eng_sockopts *so, char *err, size_t errlen)
{
	struct timeval tv = { .tv_sec = DATA_IO_TIMEOUT_S };
	int one = 1, v;

	if (so->sndbuf) {
		v = (int)so->sndbuf;
		if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)) < 0)
			goto fail_sndbuf;
	}
	if (so->rcvbuf) {
		v = (int)so->rcvbuf;
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)) < 0) {
			snprintf(err, errlen, "SO_RCVBUF %u: %s", so->rcvbuf, strerror(errno));
			return -errno;
		}
	}
	if (so->nodelay && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0) {
		snprintf(err, errlen, "TCP_NODELAY: %s", strerror(errno));
		return -errno;
	}
	if (so->cc[0] && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, so->cc, strlen(so->cc)) < 0) {
		int e = errno;

		snprintf(err, errlen, "congestion control '%s' not available: %s%s", so->cc,
			 strerror(e),
			 e == ENOENT || e == EPERM
				 ? " (see net.ipv4.tcp_allowed_congestion_control)"
				 : "");
		return -e;
	}
	if (so->bind_dev && so->bind_dev[0] &&
	    setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, so->bind_dev, strlen(so->bind_dev) + 1) <
		    0) {
		snprintf(err, errlen, "device '%s': SO_BINDTODEVICE: %s", so->bind_dev,
			 strerror(errno));
		return -errno;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return 0;
fail_sndbuf:
	snprintf(err, errlen, "SO_SNDBUF %u: %s", so->sndbuf, strerror(errno));
	return -errno;
}

static int fail(struct eng_flow *f, const char *what, int e)
{
	if (e == EAGAIN || e == EWOULDBLOCK)
		e = ETIMEDOUT;
	if (e == EPIPE)
		e = ECONNRESET;
	f->err_what = what;
	__atomic_store_n(&f->err, -e, __ATOMIC_RELEASE);
	return -e;
}

static int send_full(int fd, const char *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = send(fd, buf + off, len - off, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		off += n;
	}
	return 0;
}

/* 1 on a full message, 0 on EOF before any byte, -errno otherwise (-ECONNRESET: short). */
static int recv_full(int fd, char *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = recv(fd, buf + off, len - off, 0);

		if (n == 0)
			return off ? -ECONNRESET : 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		off += n;
	}
	return 1;
}

/*
 * MSG_ZEROCOPY's completions from the socket's error queue: each names a range of sends whose
 * pages the kernel released, and says whether it copied them after all (a local or virtual
 * receiver, a device without SG). wait_ms: how long to wait for the first one.
 */
static void zc_reap(struct eng_flow *f, int wait_ms)
{
	struct pollfd p = { .fd = f->fd, .events = 0 };
	char ctrl[CMSG_SPACE(sizeof(struct sock_extended_err) + sizeof(struct sockaddr_in6))];
	struct msghdr msg = { 0 };
	struct cmsghdr *cm;

	if (wait_ms && poll(&p, 1, wait_ms) <= 0)
		return;
	for (;;) {
		msg.msg_control = ctrl;
		msg.msg_controllen = sizeof(ctrl);
		if (recvmsg(f->fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return;
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			const struct sock_extended_err *ee = (const void *)CMSG_DATA(cm);
			uint64_t n;

			if (!((cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
			      (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR)) ||
			    ee->ee_errno || ee->ee_origin != SO_EE_ORIGIN_ZEROCOPY)
				continue;
			n = (uint32_t)(ee->ee_data - ee->ee_info) + 1;
			f->zc[ZC_DONE] += n;
			if (ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
				f->zc[ZC_COPIED] += n;
		}
	}
}

#define ZC_REAP_BATCH 32

/* One send of the bulk sender's path: bytes sent or -1 with errno. */
static ssize_t send_one(struct eng_flow *f, char *buf, size_t len, int mfd)
{
	ssize_t n;
	off_t off = 0;

	switch (f->e->send) {
	case PROBE_SEND_ZEROCOPY:
		n = send(f->fd, buf, len, MSG_NOSIGNAL | MSG_ZEROCOPY);
		if (n < 0 && errno == ENOBUFS) {
			/* the socket's option memory holds too many notifications: reap, retry */
			zc_reap(f, 100);
			errno = EINTR;
			return -1;
		}
		if (n >= 0) {
			f->zc[ZC_SENDS]++;
			/* a batch at a time: one recvmsg per send would cost what the copy saves */
			if (f->zc[ZC_SENDS] - f->zc[ZC_DONE] >= ZC_REAP_BATCH)
				zc_reap(f, 0);
		}
		return n;
	case PROBE_SEND_SENDFILE:
		return sendfile(f->fd, mfd, &off, len);
	default:
		return send(f->fd, buf, len, MSG_NOSIGNAL);
	}
}

/* sendfile's source: a memfd of one message, filled like the copy path's buffer. -1 with
 * errno on failure. */
static int send_memfd(const char *buf, size_t len)
{
	int fd = memfd_create("ethtune-probe", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (write(fd, buf, len) != (ssize_t)len) {
		int e = errno ? errno : EIO;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static void *w_send(struct eng_flow *f, char *buf)
{
	struct eng *e = f->e;
	size_t len = e->msg_size;
	int one = 1, mfd = -1, tries;

	if (e->send == PROBE_SEND_ZEROCOPY &&
	    setsockopt(f->fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one))) {
		fail(f, "setsockopt(SO_ZEROCOPY)", errno);
		return NULL;
	}
	if (e->send == PROBE_SEND_SENDFILE) {
		mfd = send_memfd(buf, len);
		if (mfd < 0) {
			fail(f, "memfd_create", errno);
			return NULL;
		}
	}
	while (!LOAD(e->stop)) {
		ssize_t n = send_one(f, buf, len, mfd);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* after the window only a send that timed out is the peer's fault */
			if (!LOAD(e->stop) || errno == EAGAIN)
				fail(f, "send", errno);
			break;
		}
		STORE(f->bytes, f->bytes + n);
	}
	shutdown(f->fd, SHUT_WR);
	/* the last sends' notifications, so the counts add up (bounded: 10 x 100 ms) */
	for (tries = 0; tries < 10 && f->zc[ZC_DONE] < f->zc[ZC_SENDS]; tries++)
		zc_reap(f, 100);
	if (mfd >= 0)
		close(mfd);
	return NULL;
}

/* A poll that found nothing within its budget makes the next ones skip, 1, 2, 4... up to this
 * many receives, until one finds data in time. */
#define RX_POLL_SKIP_MAX 256

struct rx_poll {
	uint64_t budget_ns; /* 0: off */
	unsigned int skip, backoff;
};

/* Wait for the receive queue to reach SO_RCVLOWAT by polling it (tcp_poll honours the mark and
 * takes no socket lock) for up to the budget, so that the recv() after it finds the bytes and
 * does not sleep. A receiver that sleeps is woken by the sender's softirq, which on loopback and
 * veth runs on the sender's CPU, the bottleneck (docs/probe.md, "Receive wake-ups"). A flow too
 * slow to fill the mark within the budget, or a receiver that shares the sender's CPU, finds
 * nothing and backs off. The time goes to f->poll_ns: waiting, not work. */
static void rx_poll(struct eng_flow *f, struct rx_poll *p)
{
	struct pollfd pfd = { .fd = f->fd, .events = POLLIN };
	uint64_t t0, t;
	int r;

	if (!p->budget_ns)
		return;
	if (p->skip) {
		p->skip--;
		return;
	}
	t0 = et_now_ns();
	do {
		r = poll(&pfd, 1, 0);
		t = et_now_ns();
	} while (!r && t - t0 < p->budget_ns);
	STORE(f->poll_ns, f->poll_ns + (t - t0));
	if (r) {
		p->backoff = 0;
		return;
	}
	p->backoff = p->backoff ? p->backoff * 2 : 1;
	if (p->backoff > RX_POLL_SKIP_MAX)
		p->backoff = RX_POLL_SKIP_MAX;
	p->skip = p->backoff;
}

static void *w_recv(struct eng_flow *f, char *buf, size_t len)
{
	/* MSG_TRUNC on TCP: the bytes are consumed and acknowledged, not copied */
	int flags = f->e->skip_rx_copy ? MSG_TRUNC : 0;
	/* Woken per skb, the receiver sleeps and is woken again by the sender's softirq: on
	 * loopback and veth that wake-up is paid by the sender, the bottleneck (bench probe.sh) */
	int lowat = f->e->rcvlowat < len ? (int)f->e->rcvlowat : (int)len;
	/* on one CPU the poll would only take the sender's time */
	struct rx_poll rp = { .budget_ns = sysconf(_SC_NPROCESSORS_ONLN) > 1
						   ? f->e->rx_poll_us * 1000ULL
						   : 0 };

	if (lowat && setsockopt(f->fd, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof(lowat)) < 0) {
		fail(f, "SO_RCVLOWAT", errno);
		return NULL;
	}
	for (;;) {
		ssize_t n;

		/* after a recv() that filled the buffer too: skipping the poll there let the
		 * receiver sleep and took 11% of the stream (docs/probe.md) */
		rx_poll(f, &rp);
		n = recv(f->fd, buf, len, flags);

		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail(f, "recv", errno);
			break;
		}
		STORE(f->bytes, f->bytes + n);
	}
	return NULL;
}

static void *w_rr_client(struct eng_flow *f, char *buf)
{
	struct eng *e = f->e;
	size_t len = e->msg_size;
	uint64_t t1 = et_now_ns(), t2;
	int r;

	/* one clock read per transaction: its end is the next one's start */
	while (!LOAD(e->stop)) {
		r = send_full(f->fd, buf, len);
		if (r) {
			fail(f, "send", -r);
			break;
		}
		r = recv_full(f->fd, buf, len);
		if (r <= 0) {
			fail(f, "recv", r ? -r : ECONNRESET);
			break;
		}
		t2 = et_now_ns();
		if (LOAD(e->measuring))
			hist_add(f->hist, t2 - t1);
		t1 = t2;
		STORE(f->trans, f->trans + 1);
	}
	shutdown(f->fd, SHUT_WR);
	return NULL;
}

static void *w_rr_server(struct eng_flow *f, char *buf)
{
	size_t len = f->e->msg_size;
	int r;

	for (;;) {
		r = recv_full(f->fd, buf, len);
		if (r == 0)
			break;
		if (r < 0) {
			fail(f, "recv", -r);
			break;
		}
		r = send_full(f->fd, buf, len);
		if (r) {
			fail(f, "send", -r);
			break;
		}
		STORE(f->trans, f->trans + 1);
	}
	return NULL;
}

/* A crr connection carries no hello: the session's cookie opens its request (the first four
 * bytes, fewer for a shorter message), so that only this session's client is answered. */
static void crr_cookie_put(const struct eng *e, char *buf, size_t len)
{
	uint32_t c = htonl(e->cookie);

	memcpy(buf, &c, len < sizeof(c) ? len : sizeof(c));
}

static bool crr_cookie_ok(const struct eng *e, const char *buf, size_t len)
{
	uint32_t c = htonl(e->cookie);

	return !memcmp(buf, &c, len < sizeof(c) ? len : sizeof(c));
}

static void *w_crr_client(struct eng_flow *f, char *buf)
{
	struct eng *e = f->e;
	size_t len = e->msg_size;
	char err[128];
	int fd, r;

	while (!LOAD(e->stop)) {
		uint64_t t1 = et_now_ns(), t2;

		fd = socket(e->peer.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			fail(f, "socket", errno);
			break;
		}
		if (eng_sockopts(fd, &e->so, err, sizeof(err)) < 0 ||
		    connect(fd, (struct sockaddr *)&e->peer, e->peer_len) < 0) {
			fail(f, "connect", errno);
			close(fd);
			break;
		}
		crr_cookie_put(e, buf, len);
		r = send_full(fd, buf, len);
		if (!r)
			r = recv_full(fd, buf, len);
		if (r > 0) /* the server closes first: wait for its FIN */
			r = recv(fd, buf, 1, 0) == 0 ? 1 : -ECONNRESET;
		close(fd);
		if (r <= 0) {
			fail(f, "transaction", r ? -r : ECONNRESET);
			break;
		}
		t2 = et_now_ns();
		if (LOAD(e->measuring))
			hist_add(f->hist, t2 - t1);
		STORE(f->trans, f->trans + 1);
	}
	return NULL;
}

static void *w_crr_server(struct eng_flow *f, char *buf)
{
	struct eng *e = f->e;
	size_t len = e->msg_size;
	int fd, r;

	for (;;) {
		fd = accept4(e->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (!LOAD(e->stop))
				fail(f, "accept", errno);
			break;
		}
		r = recv_full(fd, buf, len);
		if (r > 0 && !crr_cookie_ok(e, buf, len))
			r = 0; /* not this session's client: no answer, not counted */
		if (r > 0)
			r = send_full(fd, buf, len) ? -1 : 1;
		close(fd);
		if (r > 0)
			STORE(f->trans, f->trans + 1);
	}
	return NULL;
}

static void *worker(void *arg)
{
	struct eng_flow *f = arg;
	struct eng *e = f->e;
	size_t blen = e->msg_size;
	char *buf;

	if (e->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(e->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	if ((e->test == PROBE_STREAM || e->test == PROBE_MAERTS) && !eng_is_sender(e)) {
		if (e->recv_size)
			blen = e->recv_size;
		else if (blen < RECV_BUF_MIN)
			blen = RECV_BUF_MIN;
	}
	buf = malloc(blen);
	if (!buf) {
		fail(f, "malloc", ENOMEM);
		return NULL;
	}
	memset(buf, 'e', blen);
	switch (e->test) {
	case PROBE_STREAM:
	case PROBE_MAERTS:
		if (eng_is_sender(e))
			w_send(f, buf);
		else
			w_recv(f, buf, blen);
		break;
	case PROBE_RR:
		if (e->client)
			w_rr_client(f, buf);
		else
			w_rr_server(f, buf);
		break;
	case PROBE_CRR:
		if (e->client)
			w_crr_client(f, buf);
		else
			w_crr_server(f, buf);
		break;
	}
	free(buf);
	return NULL;
}

int eng_init(struct eng *e)
{
	unsigned int i;

	e->fl = aligned_alloc(64, sizeof(*e->fl) * e->flows);
	if (!e->fl)
		return -ENOMEM;
	memset(e->fl, 0, sizeof(*e->fl) * e->flows);
	for (i = 0; i < e->flows; i++) {
		e->fl[i].fd = -1;
		e->fl[i].idx = i;
		e->fl[i].e = e;
		if (e->client && (e->test == PROBE_RR || e->test == PROBE_CRR)) {
			e->fl[i].hist = calloc(1, sizeof(struct stats_hist));
			if (!e->fl[i].hist)
				return -ENOMEM;
		}
	}
	return 0;
}

void eng_free(struct eng *e)
{
	unsigned int i;

	if (!e->fl)
		return;
	for (i = 0; i < e->flows; i++) {
		if (e->fl[i].fd >= 0)
			close(e->fl[i].fd);
		free(e->fl[i].hist);
	}
	free(e->fl);
	e->fl = NULL;
}

int eng_start(struct eng *e, char *err, size_t errlen)
{
	unsigned int i;
	int r;

	STORE(e->stop, 0);
	STORE(e->measuring, 0);
	e->seen_ns = 0;
	for (i = 0; i < e->flows; i++) {
		r = pthread_create(&e->fl[i].th, NULL, worker, &e->fl[i]);
		if (r) {
			snprintf(err, errlen, "cannot start flow thread %u: %s", i, strerror(r));
			eng_abort(e);
			return -r;
		}
		e->fl[i].started = true;
	}
	return 0;
}

struct cpu_snap {
	uint64_t busy, total, proc_us;
	uint64_t thread_ns; /* the calling thread's: the one that waits, samples and reports */
};

static void cpu_snap(struct cpu_snap *s)
{
	unsigned long long v[10] = { 0 };
	struct rusage ru;
	struct timespec ts;
	FILE *f = fopen("/proc/stat", "r");
	int i;

	s->busy = s->total = 0;
	if (f) {
		if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7]) >= 4) {
			for (i = 0; i < 8; i++)
				s->total += v[i];
			s->busy = s->total - v[3] - v[4];
		}
		fclose(f);
	}
	getrusage(RUSAGE_SELF, &ru);
	s->proc_us = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000ULL + ru.ru_utime.tv_usec +
		     ru.ru_stime.tv_usec;
	s->thread_ns = 0;
	if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		s->thread_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void ti_read(int fd, struct tcp_info *ti)
{
	socklen_t len = sizeof(*ti);

	memset(ti, 0, sizeof(*ti));
	if (fd >= 0)
		getsockopt(fd, IPPROTO_TCP, TCP_INFO, ti, &len);
}

/* Sum of flows' progress counters. */
static uint64_t counter_sum(struct eng *e, bool trans)
{
	uint64_t s = 0;
	unsigned int i;

	for (i = 0; i < e->flows; i++)
		s += trans ? LOAD(e->fl[i].trans) : LOAD(e->fl[i].bytes);
	return s;
}

static int first_worker_error(struct eng *e, char *err, size_t errlen)
{
	unsigned int i;

	for (i = 0; i < e->flows; i++)
		if (__atomic_load_n(&e->fl[i].err, __ATOMIC_ACQUIRE) && !e->fl[i].aborted) {
			int r = e->fl[i].err;

			if (r == -ETIMEDOUT)
				snprintf(err, errlen, "flow %u: %s: peer silent for %d s", i,
					 e->fl[i].err_what, DATA_IO_TIMEOUT_S);
			else
				snprintf(err, errlen, "flow %u: %s: %s", i, e->fl[i].err_what,
					 strerror(-r));
			return r;
		}
	return 0;
}

/* Sleep until t (ns) while watching the control socket and the workers. */
/* Bytes the flows hold below TCP right now (sk_wmem_alloc): what TSQ limits. */
static void wmem_sample(struct eng *e)
{
	uint32_t mi[SK_MEMINFO_VARS];
	double sum = 0;
	unsigned int i;

	for (i = 0; i < e->flows; i++) {
		socklen_t l = sizeof(mi);

		if (e->fl[i].fd < 0 || getsockopt(e->fl[i].fd, SOL_SOCKET, SO_MEMINFO, mi, &l) ||
		    l <= SK_MEMINFO_WMEM_ALLOC * sizeof(mi[0]))
			return;
		sum += mi[SK_MEMINFO_WMEM_ALLOC];
	}
	e->wmem_sum += sum;
	e->wmem_n++;
}

/* The gap to the next wmem sample, uniform in [WMEM_GAP_MIN_MS, WMEM_GAP_MAX_MS] (xorshift64). */
static uint64_t wmem_gap_ns(struct eng *e)
{
	uint64_t x = e->wmem_rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	e->wmem_rng = x;
	return (WMEM_GAP_MIN_MS + x % (WMEM_GAP_MAX_MS - WMEM_GAP_MIN_MS + 1)) * 1000000ULL;
}

static int wait_until(struct eng *e, uint64_t t, int ctl_fd, uint64_t t0, double total, char *err,
		      size_t errlen)
{
	bool sample = !e->no_sample && eng_is_sender(e) && LOAD(e->measuring);

	for (;;) {
		uint64_t now = et_now_ns(), sum;
		struct pollfd p = { .fd = ctl_fd, .events = POLLIN };
		int ms, r;

		r = first_worker_error(e, err, errlen);
		if (r)
			return -EIO;
		if (now >= t)
			return 0;
		if (e->end_window && LOAD(*e->end_window))
			return 1;
		sum = counter_sum(e, false) + counter_sum(e, true);
		if (sum != e->seen_sum || !e->seen_ns) {
			e->seen_sum = sum;
			e->seen_ns = now;
		} else if (now - e->seen_ns > STALL_TIMEOUT_S * 1000000000ULL) {
			snprintf(err, errlen, "no progress on any flow for %d s (peer silent?)",
				 STALL_TIMEOUT_S);
			return -ETIMEDOUT;
		}
		ms = (int)((t - now) / 1000000) + 1;
		if (ms > 250)
			ms = 250;
		if (sample) {
			if (now >= e->wmem_next_ns) {
				wmem_sample(e);
				e->wmem_next_ns = now + wmem_gap_ns(e);
			}
			if (ms > (int)((e->wmem_next_ns - now) / 1000000) + 1)
				ms = (int)((e->wmem_next_ns - now) / 1000000) + 1;
		}
		r = poll(&p, ctl_fd >= 0 ? 1 : 0, ms);
		if (et_stop_signal()) {
			snprintf(err, errlen, "interrupted");
			return -EINTR;
		}
		if (r > 0 && e->ctl_ends_window)
			return 1;
		if (r > 0) {
			snprintf(err, errlen, "control connection became readable mid-test");
			return -ECONNABORTED;
		}
		if (e->progress) {
			static uint64_t last;
			uint64_t n = et_now_ns();

			if (n - last >= 1000000000ULL) {
				bool tr = e->test == PROBE_RR || e->test == PROBE_CRR;
				double el = (n - t0) / 1e9;

				last = n;
				e->progress(e->progress_arg, el, total,
					    tr ? counter_sum(e, true) / el
					       : counter_sum(e, false) * 8 / el / 1e6);
			}
		}
	}
}

int eng_window(struct eng *e, int ctl_fd, char *err, size_t errlen)
{
	uint64_t t0 = et_now_ns(), ta, tb;
	uint64_t wa = t0 + (uint64_t)(e->warmup_s * 1e9);
	uint64_t wb = wa + (uint64_t)(e->duration_s * 1e9);
	double total = e->warmup_s + e->duration_s;
	struct cpu_snap ca, cb;
	struct tcp_info ti;
	/* tcp_info of the bulk sender, or of the rr requester. */
	bool sender = eng_is_sender(e) || (e->test == PROBE_RR && e->client);
	unsigned int i;
	int r, early;

	r = wait_until(e, wa, ctl_fd, t0, total, err, errlen);
	if (r < 0)
		return r;
	early = r;
	if (e->mark)
		e->mark(e->mark_arg, 0);
	cpu_snap(&ca);
	ta = et_now_ns();
	for (i = 0; i < e->flows; i++) {
		struct eng_flow *f = &e->fl[i];

		f->bytes_a = LOAD(f->bytes);
		f->trans_a = LOAD(f->trans);
		f->poll_a = LOAD(f->poll_ns);
		if (sender) {
			ti_read(f->fd, &ti);
			f->ti_a.total_retrans = ti.tcpi_total_retrans;
			f->ti_a.busy = ti.tcpi_busy_time;
			f->ti_a.rwnd = ti.tcpi_rwnd_limited;
			f->ti_a.sndbuf = ti.tcpi_sndbuf_limited;
			f->ti_a.bytes_sent = ti.tcpi_bytes_sent;
		}
	}
	e->wmem_sum = 0;
	e->wmem_n = 0;
	e->wmem_next_ns = 0; /* the first sample at the window's start */
	e->wmem_rng = et_now_ns() | 1;
	STORE(e->measuring, 1);
	r = early ? 1 : wait_until(e, wb, ctl_fd, t0, total, err, errlen);
	if (r < 0)
		return r;
	tb = et_now_ns();
	for (i = 0; i < e->flows; i++) {
		e->fl[i].bytes_b = LOAD(e->fl[i].bytes);
		e->fl[i].trans_b = LOAD(e->fl[i].trans);
	}
	STORE(e->measuring, 0);
	cpu_snap(&cb);
	if (e->mark)
		e->mark(e->mark_arg, 1);
	memset(&e->res, 0, sizeof(e->res));
	e->res.elapsed_s = (tb - ta) / 1e9;
	if (cb.total > ca.total)
		e->res.cpu_util = 100.0 * (cb.busy - ca.busy) / (cb.total - ca.total);
	e->res.proc_cpu = (cb.proc_us - ca.proc_us) / 1e4 / e->res.elapsed_s;
	e->res.ctl_cpu = (cb.thread_ns - ca.thread_ns) / 1e7 / e->res.elapsed_s;
	for (i = 0; i < e->flows; i++) {
		struct eng_flow *f = &e->fl[i];

		e->res.bytes[i] = f->bytes_b - f->bytes_a;
		e->res.trans[i] = f->trans_b - f->trans_a;
		e->res.poll_cpu += (LOAD(f->poll_ns) - f->poll_a) / 1e7 / e->res.elapsed_s;
		if (sender) {
			struct probe_tcpinfo *t = &e->res.ti;

			ti_read(f->fd, &ti);
			t->valid = true;
			t->retrans += ti.tcpi_total_retrans - f->ti_a.total_retrans;
			t->rtt_us += ti.tcpi_rtt;
			t->rttvar_us += ti.tcpi_rttvar;
			t->snd_cwnd += ti.tcpi_snd_cwnd;
			t->snd_mss = ti.tcpi_snd_mss;
			t->delivery_rate += ti.tcpi_delivery_rate;
			t->busy_us += ti.tcpi_busy_time - f->ti_a.busy;
			t->rwnd_limited_us += ti.tcpi_rwnd_limited - f->ti_a.rwnd;
			t->sndbuf_limited_us += ti.tcpi_sndbuf_limited - f->ti_a.sndbuf;
			t->bytes_sent += ti.tcpi_bytes_sent - f->ti_a.bytes_sent;
		}
	}
	if (e->wmem_n) {
		e->res.ti.wmem_alloc = e->wmem_sum / e->wmem_n;
		e->res.ti.wmem_samples = e->wmem_n;
	}
	if (sender && e->flows) {
		e->res.ti.rtt_us /= e->flows;
		e->res.ti.rttvar_us /= e->flows;
		e->res.ti.snd_cwnd /= e->flows;
	}
	if (e->fl[0].fd >= 0) {
		int v;
		socklen_t l = sizeof(v);

		if (!getsockopt(e->fl[0].fd, SOL_SOCKET, SO_SNDBUF, &v, &l))
			e->res.sndbuf_end = v;
		l = sizeof(v);
		if (!getsockopt(e->fl[0].fd, SOL_SOCKET, SO_RCVBUF, &v, &l))
			e->res.rcvbuf_end = v;
		l = sizeof(v);
		if (!getsockopt(e->fl[0].fd, SOL_SOCKET, SO_RCVLOWAT, &v, &l))
			e->res.rcvlowat_end = v;
	}
	STORE(e->stop, 1);
	return 0;
}

void eng_abort(struct eng *e)
{
	unsigned int i;

	STORE(e->stop, 1);
	if (e->lfd >= 0)
		shutdown(e->lfd, SHUT_RDWR);
	for (i = 0; i < e->flows; i++)
		if (e->fl[i].fd >= 0)
			shutdown(e->fl[i].fd, SHUT_RDWR);
}

int eng_finish(struct eng *e, char *err, size_t errlen)
{
	bool bulk = e->test == PROBE_STREAM || e->test == PROBE_MAERTS;
	struct timespec until;
	unsigned int i;

	STORE(e->stop, 1);
	if (e->test == PROBE_CRR && !e->client && e->lfd >= 0)
		shutdown(e->lfd, SHUT_RDWR);
	/* a bulk sender blocked on a full socket returns now (EPIPE), and its FIN goes out */
	for (i = 0; bulk && eng_is_sender(e) && i < e->flows; i++)
		if (e->fl[i].started && e->fl[i].fd >= 0)
			shutdown(e->fl[i].fd, SHUT_WR);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += FINISH_GRACE_S;
	for (i = 0; i < e->flows; i++) {
		if (e->fl[i].started && pthread_timedjoin_np(e->fl[i].th, NULL, &until)) {
			e->fl[i].aborted = true;
			if (e->fl[i].fd >= 0)
				shutdown(e->fl[i].fd, SHUT_RDWR);
			pthread_join(e->fl[i].th, NULL);
		}
		e->fl[i].started = false;
		if (e->fl[i].hist)
			hist_merge(&e->hist, e->fl[i].hist);
		/* the workers have ended: their last notifications are in */
		e->res.zc_sends += e->fl[i].zc[ZC_SENDS];
		e->res.zc_done += e->fl[i].zc[ZC_DONE];
		e->res.zc_copied += e->fl[i].zc[ZC_COPIED];
	}
	return first_worker_error(e, err, errlen);
}

json_t *eng_result_msg(const struct eng *e)
{
	json_t *m = proto_msg(PM_RESULT), *b = json_array(), *t = json_array();
	const struct probe_side *s = &e->res;
	unsigned int i;

	for (i = 0; i < e->flows; i++) {
		json_array_append_new(b, json_integer((json_int_t)s->bytes[i]));
		json_array_append_new(t, json_integer((json_int_t)s->trans[i]));
	}
	json_object_set_new(m, "elapsed-ns", json_integer((json_int_t)(s->elapsed_s * 1e9)));
	json_object_set_new(m, "cpu-util", json_real(s->cpu_util));
	json_object_set_new(m, "proc-cpu", json_real(s->proc_cpu));
	json_object_set_new(m, "ctl-cpu", json_real(s->ctl_cpu));
	json_object_set_new(m, "sndbuf-end", json_integer(s->sndbuf_end));
	json_object_set_new(m, "rcvbuf-end", json_integer(s->rcvbuf_end));
	json_object_set_new(m, "rcvlowat-end", json_integer(s->rcvlowat_end));
	json_object_set_new(m, "poll-cpu", json_real(s->poll_cpu));
	json_object_set_new(m, "bytes", b);
	json_object_set_new(m, "trans", t);
	if (s->ti.valid)
		json_object_set_new(
			m, "tcp-info",
			json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "retrans",
				  (json_int_t)s->ti.retrans, "rtt-us", (json_int_t)s->ti.rtt_us,
				  "rttvar-us", (json_int_t)s->ti.rttvar_us, "snd-cwnd",
				  (json_int_t)s->ti.snd_cwnd, "snd-mss", (json_int_t)s->ti.snd_mss,
				  "delivery-rate", (json_int_t)s->ti.delivery_rate, "busy-us",
				  (json_int_t)s->ti.busy_us, "rwnd-limited-us",
				  (json_int_t)s->ti.rwnd_limited_us, "sndbuf-limited-us",
				  (json_int_t)s->ti.sndbuf_limited_us, "bytes-sent",
				  (json_int_t)s->ti.bytes_sent));
	if (e->send == PROBE_SEND_ZEROCOPY && eng_is_sender(e))
		json_object_set_new(m, "zerocopy",
				    json_pack("{s:I,s:I,s:I}", "sends", (json_int_t)s->zc_sends,
					      "done", (json_int_t)s->zc_done, "copied",
					      (json_int_t)s->zc_copied));
	if (e->devstats && e->devstats->valid) {
		json_object_set_new(m, "dev", json_string(e->devstats->dev));
		json_object_set_new(m, "dev-stats", devstats_json(e->devstats));
	}
	return m;
}

void eng_result_parse(json_t *m, struct probe_side *s)
{
	json_t *a, *v, *ti;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->elapsed_s = json_integer_value(json_object_get(m, "elapsed-ns")) / 1e9;
	s->cpu_util = json_number_value(json_object_get(m, "cpu-util"));
	s->proc_cpu = json_number_value(json_object_get(m, "proc-cpu"));
	/* NaN from a peer that does not send it */
	v = json_object_get(m, "ctl-cpu");
	s->ctl_cpu = v ? json_number_value(v) : NAN;
	s->sndbuf_end = json_integer_value(json_object_get(m, "sndbuf-end"));
	s->rcvbuf_end = json_integer_value(json_object_get(m, "rcvbuf-end"));
	s->rcvlowat_end = json_integer_value(json_object_get(m, "rcvlowat-end")); /* 0 if absent */
	s->poll_cpu = json_number_value(json_object_get(m, "poll-cpu"));	  /* 0 if absent */
	a = json_object_get(m, "bytes");
	json_array_foreach(a, i, v) if (i < PROBE_MAX_FLOWS) s->bytes[i] = json_integer_value(v);
	a = json_object_get(m, "trans");
	json_array_foreach(a, i, v) if (i < PROBE_MAX_FLOWS) s->trans[i] = json_integer_value(v);
	v = json_object_get(m, "zerocopy");
	s->zc_sends = json_integer_value(json_object_get(v, "sends"));
	s->zc_done = json_integer_value(json_object_get(v, "done"));
	s->zc_copied = json_integer_value(json_object_get(v, "copied"));
	ti = json_object_get(m, "tcp-info");
	if (ti) {
#define TI(f, k) s->ti.f = json_integer_value(json_object_get(ti, k))
		s->ti.valid = true;
		TI(retrans, "retrans");
		TI(rtt_us, "rtt-us");
		TI(rttvar_us, "rttvar-us");
		TI(snd_cwnd, "snd-cwnd");
		TI(snd_mss, "snd-mss");
		TI(delivery_rate, "delivery-rate");
		TI(busy_us, "busy-us");
		TI(rwnd_limited_us, "rwnd-limited-us");
		TI(sndbuf_limited_us, "sndbuf-limited-us");
		TI(bytes_sent, "bytes-sent");
#undef TI
	}
}
