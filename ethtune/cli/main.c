/* ethtune command line: global options, then one command from the table. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "util/ethtune.h"
#include "state/undo.h"

static void usage(FILE *f)
{
	const struct cli_cmd *const *c;

	fprintf(f, "Usage: ethtune [--json] [--netns NS] [--key-file F] [-v] COMMAND ...\n");
	for (c = cli_commands; *c; c++)
		fprintf(f, "       ethtune %s %s\n", (*c)->name, (*c)->synopsis);
	fprintf(f, "'ethtune COMMAND --help' lists a command's options. See ethtune(8).\n");
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
		} else if (!strcmp(a, "--key-file")) {
			if (i + 1 >= *argc) {
				et_err("--key-file needs a file name");
				return -1;
			}
			et_opts.key_file = argv[++i];
		} else if (!strncmp(a, "--key-file=", 11)) {
			et_opts.key_file = a + 11;
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
	const struct cli_cmd *const *c;

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
	for (c = cli_commands; *c; c++) {
		int ret;

		if (strcmp(argv[0], (*c)->name))
			continue;
		ret = (*c)->fn(argc, argv);
		/* temporary changes left, and a stop signal the command noticed: handled here */
		undo_command_done();
		return ret;
	}
	et_err("unknown command '%s' (try 'ethtune help')", argv[0]);
	return EXIT_USAGE;
}
