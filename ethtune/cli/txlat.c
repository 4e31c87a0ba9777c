/* ethtune txlat: trace a device while a load runs; report latency, orphans, BQL and IRQs. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "out/json_print.h"
#include "out/prom.h"
#include "trace/txlat.h"
#include "trace/txlat_run.h"
#include "util/ethtune.h"

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

enum {
	O_DURATION = CLI_LONG,
	O_LOAD,
	O_LOAD_CMD,
	O_BACKEND,
	O_BPF_STATS,
	O_DUTY,
	O_PERIOD,
	O_PROM
};

static const struct cli_opt txlat_opts[] = {
	{ "duration", O_DURATION, required_argument, "S",
	  "trace this long (default 5 s, or while the load runs)" },
	{ "load", O_LOAD, required_argument, "PROBE-ARGS",
	  "run 'ethtune probe PROBE-ARGS' while tracing" },
	{ "load-cmd", O_LOAD_CMD, required_argument, "CMD", "run 'sh -c CMD' while tracing" },
	{ "backend", O_BACKEND, required_argument, "btf|raw|tracepoint", "BPF attach backend" },
	{ "bpf-stats", O_BPF_STATS, no_argument, NULL,
	  "measure the programs' own cost (BPF run-time statistics: kernel-wide, "
	  "a clock read more in every program run while on)" },
	{ "duty", O_DUTY, required_argument, "PCT",
	  "attach the programs for PCT% of every period (default 100): the cost falls with it, "
	  "and the windows between measure it" },
	{ "period", O_PERIOD, required_argument, "MS",
	  "--duty's period (default 1000 ms; each attach and detach costs the load a few ms)" },
	{ "prom", O_PROM, required_argument, "FILE",
	  "also write the metrics for node_exporter's textfile collector (FILE ends in .prom)" },
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
	struct txlat_run *r;
	double dur;
	bool no_exe;
	const char *prom;
};

static bool backend_known(const char *name)
{
	const char *const *b;

	for (b = txlat_backend_names(); *b; b++)
		if (!strcmp(*b, name))
			return true;
	return false;
}

static int txlat_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	static char exe[4096];
	struct txlat_args *t = ctx;
	uint32_t u;
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
	case O_BPF_STATS:
		t->r->bpf_stats = true;
		return 0;
	case O_DUTY:
		if (parse_u32(arg, &u) || u < 10 || u > 100) {
			snprintf(err, errlen, "invalid --duty '%s' (percent, 10 to 100)", arg);
			return -EINVAL;
		}
		t->r->duty_pct = u;
		return 0;
	case O_PERIOD:
		if (parse_u32(arg, &u) || u < 200 || u > 60000) {
			snprintf(err, errlen, "invalid --period '%s' (ms, 200 to 60000)", arg);
			return -EINVAL;
		}
		t->r->period_s = u / 1000.0;
		return 0;
	case O_PROM:
		t->prom = arg;
		return prom_check_path(arg, err, errlen);
	case O_BACKEND:
		t->r->backend = arg;
		if (!backend_known(arg)) {
			snprintf(err, errlen, "unknown --backend '%s' (btf, raw, tracepoint)", arg);
			return -EINVAL;
		}
		return 0;
	}
	if (t->r->load_argv) {
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
		t->r->load_argv = split_args(exe, "probe", arg);
	} else {
		/* the command line as given, to a shell */
		t->r->load_argv = calloc(4, sizeof(char *));
		if (t->r->load_argv) {
			t->r->load_argv[0] = "/bin/sh";
			t->r->load_argv[1] = "-c";
			t->r->load_argv[2] = (char *)arg;
		}
	}
	if (!t->r->load_argv) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

int cmd_txlat(int argc, char **argv)
{
	static struct txlat_run r;
	struct txlat_args t = { .r = &r, .dur = -1 };
	char why[256];
	int ret;

	txlat_run_init(&r, NULL);
	if (cli_args(&cli_txlat, &argc, argv, txlat_opt, &t, &ret))
		return ret;
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
	r.dev = argv[1];
	r.duration_s = t.dur > 0 ? t.dur : (r.load_argv ? 0 : 5);
	if (enter_netns_opt())
		return EXIT_FAIL;
	if (strlen(r.dev) >= IFNAMSIZ || !if_nametoindex(r.dev)) {
		report_missing_dev(r.dev);
		return EXIT_FAIL;
	}
	ret = txlat_run_trace(&r, why, sizeof(why));
	if (ret) {
		et_err("txlat: %s", why);
		return EXIT_FAIL;
	}
	new_json_obj(et_opts.json);
	txlat_run_print(&r);
	delete_json_obj();
	if (t.prom) {
		struct prom *p = prom_new();

		if (p) {
			prom_labels(p, "device", r.dev, "driver",
				    r.res.driver[0] ? r.res.driver : "?", NULL);
			txlat_run_prom(&r, p);
		}
		if (prom_finish(p, t.prom, "txlat"))
			return EXIT_FAIL;
	}
	return EXIT_OK;
}
