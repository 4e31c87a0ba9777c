/* ethtune rdma list|caps|probe: verbs devices and RC loopback CQ probes, from the command line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "util/ethtune.h"
#include "probe/rdma_sysfs.h"

enum {
	O_PORT = CLI_LONG,
	O_GID_INDEX,
	O_MSG_SIZE,
	O_DEPTH,
	O_ITERS,
	O_CQ_COUNT,
	O_CQ_PERIOD,
	O_SWEEP,
	O_POLL
};

static const struct cli_opt rdma_opts[] = {
	{ "port", O_PORT, required_argument, "N", "probe: port (default: first active)" },
	{ "gid-index", O_GID_INDEX, required_argument, "N", "probe: GID index (default: chosen)" },
	{ "msg-size", O_MSG_SIZE, required_argument, "B", "probe: bytes per send (default 64)" },
	{ "depth", O_DEPTH, required_argument, "D", "probe: sends in flight (default 1)" },
	{ "iters", O_ITERS, required_argument, "N",
	  "probe: completions per setting (default 10000)" },
	{ "cq-count", O_CQ_COUNT, required_argument, "N", "probe: CQ moderation count" },
	{ "cq-period", O_CQ_PERIOD, required_argument, "US", "probe: CQ moderation period" },
	{ "sweep", O_SWEEP, no_argument, NULL, "probe: vary CQ moderation" },
	{ "poll", O_POLL, no_argument, NULL, "probe: busy-poll the CQ instead of events" },
	CLI_END,
};

const struct cli_cmd cli_rdma = {
	.name = "rdma",
	.fn = cmd_rdma,
	.synopsis = "list | caps [IBDEV] | probe IBDEV",
	.opts = { rdma_opts },
	.subcmds = "list caps probe",
};

static int rdma_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	static const struct {
		int id;
		uint64_t lo, hi;
	} range[] = {
		{ O_MSG_SIZE, 1, 1u << 30 }, { O_DEPTH, 1, 4096 },	{ O_ITERS, 1, 100000000 },
		{ O_PORT, 1, 255 },	     { O_GID_INDEX, 0, 65535 }, { O_CQ_COUNT, 0, 65535 },
		{ O_CQ_PERIOD, 0, 65535 },
	};
	struct rdma_probe_opts *o = ctx;
	const char *name = NULL;
	uint64_t v;
	size_t i;
	int ret;

	if (id == O_SWEEP || id == O_POLL) {
		*(id == O_SWEEP ? &o->sweep : &o->poll) = true;
		return 0;
	}
	for (i = 0; rdma_opts[i].name; i++)
		if (rdma_opts[i].id == id)
			name = rdma_opts[i].name;
	ret = id == O_MSG_SIZE ? parse_size(arg, &v) : parse_u64(arg, &v);
	if (ret) {
		snprintf(err, errlen, "--%s: invalid value '%s'", name, arg);
		return -EINVAL;
	}
	for (i = 0; i < sizeof(range) / sizeof(range[0]); i++)
		if (range[i].id == id && (v < range[i].lo || v > range[i].hi)) {
			snprintf(err, errlen, "--%s: value %s out of range", name, arg);
			return -ERANGE;
		}
	switch (id) {
	case O_MSG_SIZE:
		o->msg_size = v;
		break;
	case O_DEPTH:
		o->depth = v;
		break;
	case O_ITERS:
		o->iters = v;
		break;
	case O_PORT:
		o->port = v;
		break;
	case O_GID_INDEX:
		o->gid_index = v;
		break;
	case O_CQ_COUNT:
		o->cq_count = v;
		break;
	case O_CQ_PERIOD:
		o->cq_period = v;
		break;
	}
	return 0;
}

int rdma_probe_parse(int argc, char **argv, struct rdma_probe_opts *o, char *err, size_t errlen)
{
	char **v = calloc(argc + 2, sizeof(*v));
	int n = argc + 1, ret;

	memset(o, 0, sizeof(*o));
	o->gid_index = -1;
	o->msg_size = 64;
	o->depth = 1;
	o->iters = 10000;
	o->cq_count = -1;
	o->cq_period = -1;
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	v[0] = "probe";
	memcpy(v + 1, argv, argc * sizeof(*v));
	ret = cli_parse(&cli_rdma, &n, v, rdma_opt, o, err, errlen);
	if (!ret && n > 2) {
		snprintf(err, errlen, "unexpected argument '%s' (one IBDEV only)", v[2]);
		ret = -EINVAL;
	}
	o->ibdev = n > 1 ? v[1] : NULL;
	free(v);
	if (ret)
		return ret;
	if (!o->ibdev) {
		snprintf(err, errlen, "probe needs an RDMA device (see 'ethtune rdma list')");
		return -EINVAL;
	}
	if ((o->cq_count < 0) != (o->cq_period < 0)) {
		snprintf(err, errlen, "--cq-count and --cq-period go together");
		return -EINVAL;
	}
	if (o->cq_count > (int)o->depth && o->cq_period == 0) {
		/* only the count could raise an event, and fewer WRs than that are ever in flight
		 */
		snprintf(err, errlen, "--cq-count %d above --depth %u needs a --cq-period",
			 o->cq_count, o->depth);
		return -EINVAL;
	}
	if (o->sweep && o->cq_count >= 0) {
		snprintf(err, errlen,
			 "--sweep chooses CQ moderation itself; drop --cq-count/--cq-period");
		return -EINVAL;
	}
	return 0;
}

int cmd_rdma(int argc, char **argv)
{
	struct rdma_probe_opts o;
	const char *sub = argc > 1 ? argv[1] : NULL;
	char err[200];
	int ret;

	if (et_opts.netns) {
		ret = netns_switch(et_opts.netns);
		if (ret) {
			et_err("cannot enter namespace '%s': %s", et_opts.netns, strerror(-ret));
			return EXIT_FAIL;
		}
	}
	if (!sub || !strcmp(sub, "help") || !strcmp(sub, "--help") || !strcmp(sub, "-h")) {
		cli_usage(sub ? stdout : stderr, &cli_rdma);
		return sub ? EXIT_OK : EXIT_USAGE;
	}
	if (!strcmp(sub, "list")) {
		if (argc > 2)
			return cli_usage_err(&cli_rdma, "list takes no arguments");
		return rdma_list() ? EXIT_FAIL : EXIT_OK;
	}
	if (!strcmp(sub, "caps")) {
		if (argc > 3 || (argc == 3 && argv[2][0] == '-'))
			return cli_usage_err(&cli_rdma, "caps takes at most one RDMA device");
		return rdma_caps(argc == 3 ? argv[2] : NULL) ? EXIT_FAIL : EXIT_OK;
	}
	if (sub[0] == '-')
		return cli_usage_err(&cli_rdma, "unknown option '%s'", sub);
	if (strcmp(sub, "probe"))
		return cli_usage_err(&cli_rdma, "unknown rdma command '%s' (list, caps, probe)",
				     sub);
	ret = rdma_probe_parse(argc - 2, argv + 2, &o, err, sizeof(err));
	if (ret == CLI_HELP) {
		cli_usage(stdout, &cli_rdma);
		return EXIT_OK;
	}
	if (ret)
		return cli_usage_err(&cli_rdma, "probe: %s", err);
	return rdma_probe(&o) ? EXIT_FAIL : EXIT_OK;
}
