/* ethtune serve: the probe's peer daemon, from the command line. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "util/ethtune.h"
#include "probe/probe.h"

enum { O_BIND = CLI_LONG, O_PORT, O_ONCE };

static const struct cli_opt serve_opts[] = {
	{ "bind", O_BIND, required_argument, "ADDR", "listen on this address only" },
	{ "port", O_PORT, required_argument, "P", "control port (default 12866)" },
	{ "once", O_ONCE, no_argument, NULL, "exit after one session, with its status" },
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
};

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
	}
	return 0;
}

int cmd_serve(int argc, char **argv)
{
	struct serve_args a = { .port = PROBE_DEFAULT_PORT };
	int rc;

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
	return serve_run(a.bind_addr, a.port, a.once) ? EXIT_FAIL : EXIT_OK;
}
