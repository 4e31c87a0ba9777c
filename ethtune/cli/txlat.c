/* ethtune txlat: per-skb xmit-to-free latency of one device, from the command line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "util/ethtune.h"
#include "trace/trace.h"

enum { O_DURATION = CLI_LONG, O_LOAD, O_LOAD_CMD, O_BACKEND };

static const struct cli_opt txlat_opts[] = {
	{ "duration", O_DURATION, required_argument, "S",
	  "trace this long (default 5 s, or while the load runs)" },
	{ "load", O_LOAD, required_argument, "PROBE-ARGS",
	  "run 'ethtune probe PROBE-ARGS' while tracing" },
	{ "load-cmd", O_LOAD_CMD, required_argument, "CMD", "run 'sh -c CMD' while tracing" },
	{ "backend", O_BACKEND, required_argument, "btf|raw|tracepoint", "BPF attach backend" },
	CLI_END,
};

const struct cli_cmd cli_txlat = {
	.name = "txlat",
	.fn = cmd_txlat,
	.synopsis = "DEV",
	.opts = { txlat_opts },
	.dev_arg = true,
};

struct txlat_args {
	double dur;
	const char *backend;
	char **load_argv;
	bool no_exe;
};

/* Split a load string on blanks into a NULL-terminated argv after the given prefix. */
static char **split_args(const char *prefix0, const char *prefix1, const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL;
	char **argv = calloc(strlen(s) / 2 + 4, sizeof(char *));
	int n = 0;

	if (!copy || !argv) {
		free(copy);
		free(argv);
		return NULL;
	}
	if (prefix0)
		argv[n++] = (char *)prefix0;
	if (prefix1)
		argv[n++] = (char *)prefix1;
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
		argv[n++] = tok;
	argv[n] = NULL;
	return argv;
}

static int txlat_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	static char exe[4096];
	struct txlat_args *t = ctx;
	char *end;
	ssize_t n;

	switch (id) {
	case O_DURATION:
		t->dur = strtod(arg, &end);
		if (*end || end == arg || !(t->dur > 0) || t->dur > 86400) {
			snprintf(err, errlen, "invalid --duration '%s' (seconds, > 0)", arg);
			return -EINVAL;
		}
		return 0;
	case O_BACKEND:
		t->backend = arg;
		if (!txlat_backend_known(arg)) {
			snprintf(err, errlen, "unknown --backend '%s' (btf, raw, tracepoint)", arg);
			return -EINVAL;
		}
		return 0;
	}
	if (t->load_argv) {
		snprintf(err, errlen, "only one --load or --load-cmd");
		return -EINVAL;
	}
	if (id == O_LOAD) {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0) {
			t->no_exe = true;
			return 0;
		}
		exe[n] = 0;
		t->load_argv = split_args(exe, "probe", arg);
	} else {
		t->load_argv = split_args("/bin/sh", "-c", "");
		if (t->load_argv)
			t->load_argv[2] = (char *)arg;
	}
	return 0;
}

int cmd_txlat(int argc, char **argv)
{
	struct txlat_args t = { .dur = -1 };
	int rc;

	if (cli_args(&cli_txlat, &argc, argv, txlat_opt, &t, &rc))
		return rc;
	if (t.no_exe) {
		et_err("txlat: cannot find the ethtune binary for --load");
		return EXIT_FAIL;
	}
	if (argc < 2)
		return cli_usage_err(&cli_txlat, "missing device");
	if (argc > 2) {
		et_err("txlat: unexpected argument '%s' (one device at a time)", argv[2]);
		return EXIT_USAGE;
	}
	return txlat_main(argv[1], t.dur > 0 ? t.dur : (t.load_argv ? 0 : 5), t.backend,
			  t.load_argv)
		       ? EXIT_FAIL
		       : EXIT_OK;
}
