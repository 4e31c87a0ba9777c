/* ethtune serve: the probe's peer daemon, from the command line. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "util/ethtune.h"
#include "probe/auth.h"
#include "probe/probe.h"

enum { O_BIND = CLI_LONG, O_PORT, O_ONCE, O_MAXDUR, O_MAXFLOWS, O_MAXMSG, O_MAXRATE };

static const struct cli_opt serve_opts[] = {
	{ "bind", O_BIND, required_argument, "ADDR",
	  "listen on this address; 'any' for every address (default 127.0.0.1)" },
	{ "port", O_PORT, required_argument, "P", "control port (default 12866)" },
	{ "once", O_ONCE, no_argument, NULL, "exit after one session, with its status" },
	{ "max-duration", O_MAXDUR, required_argument, "S",
	  "longest run a client may ask for, warmup included (default 3600)" },
	{ "max-flows", O_MAXFLOWS, required_argument, "N", "most flows per run (default 128)" },
	{ "max-msg-size", O_MAXMSG, required_argument, "BYTES",
	  "largest send or request size (default 16777216)" },
	{ "max-rate", O_MAXRATE, required_argument, "N",
	  "connections a minute from one address, each a session or a try at one; 0: no limit "
	  "(default 600)" },
	CLI_END,
};

const struct cli_cmd cli_serve = {
	.name = "serve",
	.fn = cmd_serve,
	.synopsis = "",
	.opts = { serve_opts },
};

struct serve_args {
	const char *bind_addr;
	uint32_t port;
	bool once;
	struct serve_limits lim;
};

/* A limit's value: an integer in lo..hi. */
static int limit_opt(const char *name, const char *arg, uint32_t lo, uint32_t hi, uint32_t *v,
		     char *err, size_t errlen)
{
	if (parse_u32(arg, v) || *v < lo || *v > hi) {
		snprintf(err, errlen, "--%s '%s' is not %u..%u", name, arg, lo, hi);
		return -EINVAL;
	}
	return 0;
}

static int serve_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct serve_args *a = ctx;

	switch (id) {
	case O_BIND:
		a->bind_addr = arg;
		break;
	case O_PORT:
		if (parse_u32(arg, &a->port) || a->port < 1 || a->port > 65535) {
			snprintf(err, errlen, "port '%s' is not 1..65535", arg);
			return -EINVAL;
		}
		break;
	case O_ONCE:
		a->once = true;
		break;
	case O_MAXDUR:
		return limit_opt("max-duration", arg, 1, PROBE_MAX_DURATION_S,
				 &a->lim.max_duration_s, err, errlen);
	case O_MAXFLOWS:
		return limit_opt("max-flows", arg, 1, PROBE_MAX_FLOWS, &a->lim.max_flows, err,
				 errlen);
	case O_MAXMSG:
		return limit_opt("max-msg-size", arg, 1, PROBE_MAX_MSG, &a->lim.max_msg_size, err,
				 errlen);
	case O_MAXRATE:
		return limit_opt("max-rate", arg, 0, 1000000, &a->lim.max_per_minute, err, errlen);
	}
	return 0;
}

int cmd_serve(int argc, char **argv)
{
	struct serve_args a = { .port = PROBE_DEFAULT_PORT };
	int rc;

	serve_limits_init(&a.lim);
	if (cli_args(&cli_serve, &argc, argv, serve_opt, &a, &rc))
		return rc;
	if (argc > 1)
		return cli_usage_err(&cli_serve, "unexpected argument '%s'", argv[1]);
	if (et_opts.netns) {
		int r = netns_switch(et_opts.netns);

		if (r) {
			et_err("namespace '%s': %s", et_opts.netns, strerror(-r));
			return EXIT_FAIL;
		}
	}
	return serve_run(a.bind_addr, a.port, a.once, auth_key_file(), &a.lim) ? EXIT_FAIL
									       : EXIT_OK;
}
