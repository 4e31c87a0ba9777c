/* ethtune command line: global options, then one command from the table. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "util/ethtune.h"
#include "state/undo.h"

static const struct et_cmd commands[] = {
	{ "show", cmd_show, "show DEV [--json] [--netns NS]" },
	{ "set", cmd_set,
	  "set DEV coalesce|ring|channels KEY VAL... | feature NAME on|off |\n"
	  "            priv-flag NAME on|off | mtu N | gso-max-size N | gso-max-segs N |\n"
	  "            gso-ipv4-max-size N | txqueuelen N  [--for SECONDS]" },
	{ "restore", cmd_restore, "restore [DEV] [--list]" },
	{ "sweep", cmd_sweep, "sweep tsq|mtu|coalesce DEV --peer ADDR[:PORT] ..." },
	{ "tune", cmd_tune,
	  "tune DEV --peer ADDR[:PORT] --objective throughput|latency|cpu|balanced [--param KEY]\n"
	  "            [--values V,...] [--write-profile FILE | --profile-name NAME]" },
	{ "diagnose", cmd_diagnose,
	  "diagnose DEV --peer ADDR[:PORT] [--peer-dev DEV --peer-netns NS] [--mtu-sweep] [--svg "
	  "F]" },
	{ "serve", cmd_serve, "serve [--bind ADDR] [--port P] [--once]" },
	{ "probe", cmd_probe,
	  "probe --peer ADDR[:PORT] [--test stream|maerts|rr|crr] [--duration S] [--warmup S]\n"
	  "            [--flows N] [--msg-size B] [--recv-size B] [--sndbuf B] [--rcvbuf B] "
	  "[--nodelay]\n"
	  "            [--cc NAME] [--cpu L,R] [--iterations MIN,MAX] [--confidence LEVEL,WIDTH]\n"
	  "            [--bind-dev DEV]" },
	{ "txlat", cmd_txlat,
	  "txlat DEV [--duration S] [--load PROBE-ARGS | --load-cmd CMD] [--backend B]" },
	{ "model", cmd_model,
	  "model --rate RATE --tsq BYTES --tx-usecs US [--mtu N] [--gso-size B] [--rtt US]" },
	{ "profile", cmd_profile,
	  "profile list | show NAME | match DEV | apply DEV [NAME] | verify DEV [NAME]" },
	{ "rdma", cmd_rdma,
	  "rdma list | caps [IBDEV] | probe IBDEV [--msg-size B] [--depth D] [--iters N]\n"
	  "            [--cq-count N --cq-period US] [--sweep] [--poll] [--port N] [--gid-index "
	  "N]" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: ethtune [--json] [--netns NS] [-v] COMMAND ...\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "       ethtune %s\n", commands[i].usage);
	fprintf(f, "See ethtune(8).\n");
}

/* Global options may appear anywhere; they are removed from argv before the command runs. */
static int take_global_opts(int *argc, char **argv)
{
	int i, j = 0;

	for (i = 0; i < *argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--json") || !strcmp(a, "-j")) {
			et_opts.json = true;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			et_opts.verbose = true;
		} else if (!strcmp(a, "--netns") || !strcmp(a, "-n")) {
			if (i + 1 >= *argc) {
				et_err("--netns needs a namespace name");
				return -1;
			}
			et_opts.netns = argv[++i];
		} else if (!strncmp(a, "--netns=", 8)) {
			et_opts.netns = a + 8;
		} else {
			argv[j++] = argv[i];
		}
	}
	*argc = j;
	argv[j] = NULL;
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	argc--;
	argv++;
	if (take_global_opts(&argc, argv))
		return EXIT_USAGE;
	if (argc < 1 || !strcmp(argv[0], "help") || !strcmp(argv[0], "--help") ||
	    !strcmp(argv[0], "-h")) {
		usage(argc < 1 ? stderr : stdout);
		return argc < 1 ? EXIT_USAGE : EXIT_OK;
	}
	if (!strcmp(argv[0], "--version") || !strcmp(argv[0], "version")) {
		printf("ethtune %s\n", ETHTUNE_VERSION);
		return EXIT_OK;
	}
	/* Temporary changes of an ethtune that was killed are undone by the next run. */
	if (strcmp(argv[0], "restore"))
		undo_restore(&(struct undo_sel){ .which = UNDO_ORPHANS }, NULL, NULL);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		int ret;

		if (strcmp(argv[0], commands[i].name))
			continue;
		ret = commands[i].fn(argc, argv);
		/* temporary changes left, and a stop signal the command noticed: handled here */
		undo_command_done();
		return ret;
	}
	et_err("unknown command '%s' (try 'ethtune help')", argv[0]);
	return EXIT_USAGE;
}
