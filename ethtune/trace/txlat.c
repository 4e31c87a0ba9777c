/* txlat's engine: per-skb xmit-to-free latency per TX queue and socket orphans, by BPF. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "nl/devobj.h"
#include "knowledge/drvdb.h"
#include "util/ethtune.h"
#include "trace/txlat.h"
#include "txlat.h"
#include "txlat.skel.h"

#define MIN(a, b)     ((a) < (b) ? (a) : (b))
#define MAX(a, b)     ((a) > (b) ? (a) : (b))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

_Static_assert(TXLAT_QUEUES == TXLAT_MAX_QUEUES, "the API's queues are the programs'");

enum txlat_hook {
	HOOK_XMIT,
	HOOK_CONSUME,
	HOOK_KFREE,
	HOOK_WFREE,
	HOOK_PEER,
	HOOK_PULL,
	HOOK_NCS,
	NHOOKS
};

/* The fentry hooks: optional, tried in this order of sets until one attaches */
#define OPT_HOOKS (1U << HOOK_WFREE | 1U << HOOK_PULL | 1U << HOOK_NCS)
static const unsigned int opt_tries[] = { OPT_HOOKS, 1U << HOOK_WFREE | 1U << HOOK_NCS,
					  1U << HOOK_WFREE, 0 };

/* A way to attach the same handlers. prog() returns NULL for a hook the backend lacks;
 * prepare is NULL when the backend needs nothing from the environment. */
struct txlat_ops {
	const char *name;
	int (*prepare)(char *why, size_t len);
	struct bpf_program *(*prog)(struct txlat_bpf *s, enum txlat_hook h);
};

static struct bpf_program *btf_prog(struct txlat_bpf *s, enum txlat_hook h)
{
	struct bpf_program *p[NHOOKS] = {
		[HOOK_XMIT] = s->progs.btf_xmit,   [HOOK_CONSUME] = s->progs.btf_consume,
		[HOOK_KFREE] = s->progs.btf_kfree, [HOOK_WFREE] = s->progs.btf_wfree,
		[HOOK_PEER] = s->progs.btf_peer,   [HOOK_PULL] = s->progs.btf_pull,
		[HOOK_NCS] = s->progs.btf_ncs,
	};
	return p[h];
}

static struct bpf_program *raw_prog(struct txlat_bpf *s, enum txlat_hook h)
{
	struct bpf_program *p[NHOOKS] = {
		[HOOK_XMIT] = s->progs.raw_xmit,
		[HOOK_CONSUME] = s->progs.raw_consume,
		[HOOK_KFREE] = s->progs.raw_kfree,
		[HOOK_PEER] = s->progs.raw_peer,
	};
	return p[h];
}

static struct bpf_program *tp_prog(struct txlat_bpf *s, enum txlat_hook h)
{
	struct bpf_program *p[NHOOKS] = {
		[HOOK_XMIT] = s->progs.tp_xmit,
		[HOOK_CONSUME] = s->progs.tp_consume,
		[HOOK_KFREE] = s->progs.tp_kfree,
		[HOOK_PEER] = s->progs.tp_peer,
	};
	return p[h];
}

/* Perf tracepoints resolve their ids through tracefs: mount it when it is missing. */
static int tracefs_prepare(char *why, size_t len)
{
	if (!access("/sys/kernel/tracing/events/net", F_OK) ||
	    !access("/sys/kernel/debug/tracing/events/net", F_OK))
		return 0;
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) &&
	    access("/sys/kernel/tracing/events/net", F_OK)) {
		int err = -errno;

		snprintf(
			why, len,
			"backend 'tracepoint' needs tracefs, which is not mounted and could not be "
			"mounted (%s); run 'mount -t tracefs nodev /sys/kernel/tracing' or use "
			"--backend btf|raw",
			strerror(-err));
		return err ? err : -ENOENT;
	}
	return 0;
}

static const struct txlat_ops txlat_backends[] = {
	{ "btf", NULL, btf_prog },
	{ "raw", NULL, raw_prog },
	{ "tracepoint", tracefs_prepare, tp_prog },
};
#define N_BACKENDS (sizeof(txlat_backends) / sizeof(txlat_backends[0]))

struct txlat {
	struct txlat_bpf *skel;
	const struct txlat_ops *ops;
	char dev[IFNAMSIZ], driver[32], kind[32];
	int ifindex;
	uint32_t netns_ino;
	const char *completion; /* driver, receiver (veth, loopback) or reader (tun) */
	bool peer;		/* time the peer's receive of the same skb */
	bool wfree_hooked, pull_hooked, ksyms_ok, attached;
	int stats_fd;	  /* BPF run-time statistics while open, -1 off */
	double t0, t1;	  /* the window: its start, and its end once stopped (0 running) */
	double on0, on_s; /* the last attach, and the time attached in the window before it */
	uint64_t runs0, run_ns0;
	struct txlat_q base[TXLAT_MAX_QUEUES], now[TXLAT_MAX_QUEUES];
};

const char *const *txlat_backend_names(void)
{
	static const char *names[N_BACKENDS + 1];
	size_t i;

	for (i = 0; i < N_BACKENDS; i++)
		names[i] = txlat_backends[i].name;
	return names;
}

static int libbpf_print_fn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!et_opts.verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Capabilities the BPF programs need: CAP_SYS_ADMIN, or CAP_BPF with CAP_PERFMON. */
static bool have_bpf_caps(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};
	uint64_t eff;

	if (syscall(SYS_capget, &hdr, data))
		return false;
	eff = data[0].effective | ((uint64_t)data[1].effective << 32);
	return (eff & (1ULL << 21)) || ((eff & (1ULL << 39)) && (eff & (1ULL << 38)));
}

/* Addresses of the socket write-memory destructors, to tell owned skbs from orphaned ones. */
static int read_ksyms(uint64_t *tcp_wfree, uint64_t *sock_wfree, uint64_t *__sock_wfree)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256], name[128], type;
	unsigned long long a;

	*tcp_wfree = *sock_wfree = *__sock_wfree = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &a, &type, name) != 3 || strchr(line, '['))
			continue;
		if (!strcmp(name, "tcp_wfree"))
			*tcp_wfree = a;
		else if (!strcmp(name, "sock_wfree"))
			*sock_wfree = a;
		else if (!strcmp(name, "__sock_wfree"))
			*__sock_wfree = a;
	}
	fclose(f);
	return *tcp_wfree ? 0 : -ENOENT;
}
/* Each queue's counters and histograms, summed over CPUs. */
static int read_maps(struct txlat_bpf *s, struct txlat_q *qs)
{
	int ncpu = libbpf_num_possible_cpus(), c, ret = 0;
	size_t hsz = sizeof(struct txlat_hist), ssz = sizeof(struct txlat_qstats);
	void *buf;
	__u32 q, k;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	buf = calloc(ncpu, hsz > ssz ? hsz : ssz);
	if (!buf)
		return -ENOMEM;
	memset(qs, 0, TXLAT_MAX_QUEUES * sizeof(*qs));
	for (q = 0; q < TXLAT_MAX_QUEUES; q++) {
		struct txlat_q *tq = &qs[q];

		if (bpf_map_lookup_elem(bpf_map__fd(s->maps.qstats), &q, buf)) {
			ret = -errno;
			goto out;
		}
		for (c = 0; c < ncpu; c++) {
			struct txlat_qstats *st = (void *)((char *)buf + c * ssz);
			unsigned int i;

			for (i = 0; i < TXLAT_C_NCTR; i++)
				tq->st.c[i] += st->c[i];
			tq->st.max_len = MAX(tq->st.max_len, st->max_len);
			tq->st.max_segs = MAX(tq->st.max_segs, st->max_segs);
			for (i = 0; i < TXLAT_H_NKINDS; i++)
				tq->st.sum_ns[i] += st->sum_ns[i];
			for (i = 0; i < TXLAT_H_NKINDS; i++)
				if (st->max_ns[i] > tq->st.max_ns[i])
					tq->st.max_ns[i] = st->max_ns[i];
		}
		for (k = 0; k < TXLAT_H_NKINDS; k++) {
			__u32 key = k * TXLAT_MAX_QUEUES + q;
			unsigned int i;

			if (bpf_map_lookup_elem(bpf_map__fd(s->maps.hists), &key, buf)) {
				ret = -errno;
				goto out;
			}
			for (c = 0; c < ncpu; c++) {
				struct txlat_hist *h = (void *)((char *)buf + c * hsz);

				for (i = 0; i < TXLAT_NBUCKETS; i++)
					tq->h[k].slot[i] += h->slot[i];
			}
		}
	}
out:
	free(buf);
	return ret;
}

/* Load and attach one backend with the optional hooks in @opt; 0 or -errno (the skeleton is
 * destroyed on failure). */
static int txlat_attach(struct txlat *r, const struct txlat_ops *ops, unsigned int opt, char *why,
			size_t len)
{
	uint64_t tw, sw, __sw;
	struct txlat_bpf *s;
	struct bpf_program *p;
	int h, ret;

	if (ops->prepare) {
		ret = ops->prepare(why, len);
		if (ret)
			return ret;
	}
	s = txlat_bpf__open();
	if (!s)
		return errno ? -errno : -EINVAL;
	r->ksyms_ok = !read_ksyms(&tw, &sw, &__sw);
	s->rodata->targ_ifindex = r->ifindex;
	s->rodata->targ_netns = r->netns_ino;
	s->rodata->addr_tcp_wfree = tw;
	s->rodata->addr_sock_wfree = sw;
	s->rodata->addr___sock_wfree = __sw;
	for (p = bpf_object__next_program(s->obj, NULL); p; p = bpf_object__next_program(s->obj, p))
		bpf_program__set_autoload(p, false);
	for (h = 0; h < NHOOKS; h++) {
		p = ops->prog(s, h);
		if (p && (!(OPT_HOOKS & 1U << h) || (opt & 1U << h)) && (h != HOOK_PEER || r->peer))
			bpf_program__set_autoload(p, true);
	}
	ret = txlat_bpf__load(s);
	if (!ret)
		ret = txlat_bpf__attach(s);
	if (ret) {
		ret = ret < 0 ? ret : -errno;
		txlat_bpf__destroy(s);
		return ret;
	}
	r->ops = ops;
	r->wfree_hooked = (opt & 1U << HOOK_WFREE) && ops->prog(s, HOOK_WFREE);
	r->pull_hooked = (opt & 1U << HOOK_PULL) && ops->prog(s, HOOK_PULL);
	r->skel = s;
	return 0;
}

/* Try the requested backend, or each in turn, each with its fentry hooks first (tcp_wfree timing
 * and linearization, then tcp_wfree alone, then none). The error reported is the first
 * backend's without fentry: fentry fails on kernels without trampolines, which says nothing
 * about the rest. */
static int txlat_load(struct txlat *r, const char *backend, char *why, size_t len)
{
	struct txlat_bpf *probe = txlat_bpf__open();
	int ret = -ENOENT, first = 0;
	size_t i, k;

	if (!probe)
		return errno ? -errno : -EINVAL;
	for (i = 0; i < N_BACKENDS; i++) {
		const struct txlat_ops *ops = &txlat_backends[i];

		if (backend && strcmp(backend, ops->name))
			continue;
		for (k = 0; k < ARRAY_SIZE(opt_tries) - 1; k++) {
			unsigned int opt = opt_tries[k], h;

			for (h = 0; h < NHOOKS; h++)
				if ((opt & 1U << h) && !ops->prog(probe, h))
					break;
			if (h < NHOOKS)
				continue; /* the backend lacks one of them */
			ret = txlat_attach(r, ops, opt, why, len);
			if (!ret)
				break;
			if (et_opts.verbose)
				et_info("txlat: backend %s with fentry hooks 0x%x: %s (trying "
					"fewer)",
					ops->name, opt, strerror(-ret));
		}
		if (k < ARRAY_SIZE(opt_tries) - 1)
			break;
		ret = txlat_attach(r, ops, 0, why, len);
		if (!ret)
			break;
		if (et_opts.verbose)
			et_info("txlat: backend %s: %s", ops->name, strerror(-ret));
		first = first ? first : ret;
		if (ret == -EPERM || backend)
			break;
	}
	txlat_bpf__destroy(probe);
	return ret ? (first ? first : ret) : 0;
}

static const char *completion_kind(const char *kind, const char *driver, const char *dev)
{
	uint64_t type = 0;

	if (!dev_sysfs_u64(dev, "type", &type) && type == 772) /* ARPHRD_LOOPBACK */
		kind = "loopback";
	switch (drvdb_software(driver, kind)) {
	case DRV_SW_RECEIVER:
		return "receiver";
	case DRV_SW_READER:
		return "reader";
	default:
		return "driver";
	}
}

/* The programs' run time and runs so far, as the kernel counted them. */
static void bpf_cost(struct txlat_bpf *s, uint64_t *runs, uint64_t *run_ns)
{
	struct bpf_program *p;

	*runs = *run_ns = 0;
	for (p = bpf_object__next_program(s->obj, NULL); p;
	     p = bpf_object__next_program(s->obj, p)) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_program__fd(p) < 0 ||
		    bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
			continue;
		*run_ns += info.run_time_ns;
		*runs += info.run_cnt;
	}
}

/* What the device is and where: ifindex and namespace for the programs' filter, driver and
 * link kind for what its "free" means. */
static int txlat_identify(struct txlat *t, const char *dev, char *why, size_t len)
{
	struct et_drvinfo d = {};
	struct et_link l = {};
	struct nl_sock ns;
	struct stat sb;

	if (strlen(dev) >= IFNAMSIZ || !(t->ifindex = if_nametoindex(dev))) {
		snprintf(why, len, "no such device '%s' in this network namespace", dev);
		return -ENODEV;
	}
	snprintf(t->dev, sizeof(t->dev), "%s", dev);
	if (!have_bpf_caps()) {
		snprintf(why, len,
			 "loading BPF programs needs root (CAP_BPF and CAP_PERFMON, or "
			 "CAP_SYS_ADMIN)");
		return -EPERM;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		int err = -errno;

		snprintf(why, len,
			 "this kernel has no BTF (/sys/kernel/btf/vmlinux: %s); txlat needs "
			 "CONFIG_DEBUG_INFO_BTF=y to relocate its BPF programs",
			 strerror(-err));
		return err;
	}
	if (stat("/proc/self/ns/net", &sb)) {
		int err = -errno;

		snprintf(why, len, "cannot identify this network namespace: %s", strerror(-err));
		return err;
	}
	t->netns_ino = (uint32_t)sb.st_ino;
	link_get_dev(dev, &l);
	if (!nl_open_genl(&ns, "ethtool")) {
		drvinfo_get(&ns, dev, &d);
		nl_close(&ns);
	}
	snprintf(t->driver, sizeof(t->driver), "%s", d.driver);
	snprintf(t->kind, sizeof(t->kind), "%s", l.kind);
	t->completion = completion_kind(l.kind, d.driver, dev);
	t->peer = !strcmp(t->completion, "receiver");
	return 0;
}

int txlat_open(const char *dev, const struct txlat_opts *o, struct txlat **out, char *why,
	       size_t len)
{
	struct txlat *t = calloc(1, sizeof(*t));
	int ret;

	*out = NULL;
	why[0] = '\0';
	if (!t) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	t->stats_fd = -1;
	ret = txlat_identify(t, dev, why, len);
	if (ret) {
		free(t);
		return ret;
	}
	libbpf_set_print(libbpf_print_fn);
	ret = txlat_load(t, o ? o->backend : NULL, why, len);
	if (ret == -EACCES && geteuid() == 0)
		snprintf(why, len, "the kernel's BPF verifier rejected the programs%s",
			 et_opts.verbose ? " (its log is above)" : " (-v shows its log)");
	else if (ret == -EPERM || ret == -EACCES)
		snprintf(why, len,
			 "the kernel refused the BPF programs (%s); needs root (CAP_BPF and "
			 "CAP_PERFMON, or CAP_SYS_ADMIN)",
			 strerror(-ret));
	else if (ret && !why[0])
		snprintf(why, len, "cannot trace %s: %s%s", dev, strerror(-ret),
			 et_opts.verbose ? "" : " (-v shows why)");
	if (ret) {
		free(t);
		return ret;
	}
	t->attached = true;
	t->on0 = et_now_s();
	/* Run-time accounting of BPF programs, while stats_fd is open (needs CAP_SYS_ADMIN). */
	if (o && o->bpf_stats)
		t->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	t->t0 = et_now_s();
	*out = t;
	return 0;
}

void txlat_stop(struct txlat *t)
{
	if (!t || !t->attached)
		return;
	txlat_pause(t, 0);
	t->t1 = et_now_s();
}

/* Forget the skbs in flight at a stop: their frees were not seen, and a later xmit of the same
 * address would count as a reuse. The programs take an entry timed before the epoch (their
 * clock, CLOCK_MONOTONIC) for an empty way. */
static int forget_inflight(struct txlat *t)
{
	__u32 zero = 0;

	t->skel->bss->epoch_ns = et_now_ns();
	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.bss), &zero, t->skel->bss, BPF_ANY))
		return -errno;
	return 0;
}

/* The skeleton's link slot of the xmit program, the one hook that starts an entry. */
static struct bpf_link **xmit_link(struct txlat *t)
{
	const struct bpf_object_skeleton *sk = t->skel->skeleton;
	struct bpf_program *x = t->ops->prog(t->skel, HOOK_XMIT);
	int i;

	for (i = 0; i < sk->prog_cnt; i++)
		if (*sk->progs[i].prog == x)
			return sk->progs[i].link;
	return NULL;
}

int txlat_resume(struct txlat *t)
{
	const struct bpf_object_skeleton *sk = t->skel->skeleton;
	struct bpf_link **xl = xmit_link(t);
	int i, pass, ret;

	if (t->attached)
		return 0;
	ret = forget_inflight(t);
	if (ret)
		return ret;
	/* every other hook first (pass 0), so that no skb starts an entry whose end is not
	 * watched; the xmit hook last (pass 1) */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < sk->prog_cnt; i++) {
			struct bpf_link **l = sk->progs[i].link;

			if ((l == xl) != pass || *l || !bpf_program__autoload(*sk->progs[i].prog))
				continue;
			*l = bpf_program__attach(*sk->progs[i].prog);
			if (!*l) {
				ret = -errno;
				txlat_bpf__detach(t->skel);
				return ret;
			}
		}
	t->attached = true;
	t->on0 = et_now_s();
	return 0;
}

void txlat_pause(struct txlat *t, double grace_s)
{
	struct bpf_link **xl;

	if (!t || !t->attached)
		return;
	xl = xmit_link(t);
	if (xl && *xl && grace_s > 0) {
		bpf_link__destroy(*xl);
		*xl = NULL;
		et_sleep_s(grace_s);
	}
	txlat_bpf__detach(t->skel);
	t->attached = false;
	t->on_s += et_now_s() - t->on0;
}

int txlat_reset(struct txlat *t)
{
	int ret;

	if (!t->attached) {
		ret = txlat_resume(t);
		if (ret)
			return ret;
	}
	t->on_s = 0;
	t->on0 = et_now_s();
	ret = read_maps(t->skel, t->base);
	if (ret)
		return ret;
	if (t->stats_fd >= 0)
		bpf_cost(t->skel, &t->runs0, &t->run_ns0);
	t->t0 = et_now_s();
	t->t1 = 0;
	return 0;
}

int txlat_read(struct txlat *t, struct txlat_result *r)
{
	unsigned int q;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = read_maps(t->skel, t->now);
	if (ret)
		return ret;
	for (q = 0; q < TXLAT_MAX_QUEUES; q++)
		txlat_q_window(&t->now[q], &t->base[q]);
	snprintf(r->dev, sizeof(r->dev), "%s", t->dev);
	snprintf(r->driver, sizeof(r->driver), "%s", t->driver);
	snprintf(r->kind, sizeof(r->kind), "%s", t->kind);
	snprintf(r->backend, sizeof(r->backend), "%s", t->ops->name);
	r->free_is = t->completion;
	r->peer = t->peer;
	r->wfree_hooked = t->wfree_hooked;
	r->pull_hooked = t->pull_hooked;
	r->ksyms_ok = t->ksyms_ok;
	r->elapsed_s = (t->t1 ? t->t1 : et_now_s()) - t->t0;
	r->traced_s = t->on_s + (t->attached ? et_now_s() - t->on0 : 0);
	if (t->stats_fd >= 0) {
		bpf_cost(t->skel, &r->bpf_runs, &r->bpf_run_ns);
		r->bpf_runs -= MIN(t->runs0, r->bpf_runs);
		r->bpf_run_ns -= MIN(t->run_ns0, r->bpf_run_ns);
	}
	txlat_result_compute(t->now, r);
	return 0;
}

int txlat_collect(struct txlat *t, struct txlat_result *r, char *why, size_t len)
{
	int ret;

	txlat_stop(t);
	ret = txlat_read(t, r);
	if (ret) {
		snprintf(why, len, "cannot read the counts of %s: %s", t->dev, strerror(-ret));
		return ret;
	}
	if (!r->free.n && !r->c.tcp) {
		snprintf(why, len, "no skb of %s was traced", t->dev);
		return -ENODATA;
	}
	return 0;
}

void txlat_close(struct txlat *t)
{
	if (!t)
		return;
	txlat_bpf__destroy(t->skel);
	if (t->stats_fd >= 0)
		close(t->stats_fd);
	free(t);
}
