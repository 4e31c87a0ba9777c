/* The command tables at work: getopt_long from a command's tables, its usage, bash completion. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/ethtune.h"

#define CLI_MAX_OPTS 64

const struct cli_cmd *const cli_commands[] = {
	&cli_show,     &cli_set,    &cli_restore, &cli_sweep,	   &cli_tune,  &cli_diagnose,
	&cli_validate, &cli_serve,  &cli_probe,	  &cli_txlat,	   &cli_model, &cli_profile,
	&cli_rdma,     &cli_matrix, &cli_compare, &cli_completion, NULL,
};

static const struct cli_opt help_opt[] = {
	{ "help", 'h', no_argument, NULL, "print this usage and exit" },
	CLI_END,
};

/* The command's tables, help first, as one list; returns how many. */
static unsigned int cli_all(const struct cli_cmd *c, const struct cli_opt **v, unsigned int max)
{
	unsigned int n = 0, t;
	const struct cli_opt *o;

	for (o = help_opt; o->name && n < max; o++)
		v[n++] = o;
	for (t = 0; t < 3 && c->opts[t]; t++)
		for (o = c->opts[t]; o->name && n < max; o++)
			v[n++] = o;
	return n;
}

int cli_parse(const struct cli_cmd *c, int *argc, char **argv, cli_opt_fn fn, void *ctx, char *err,
	      size_t errlen)
{
	const struct cli_opt *v[CLI_MAX_OPTS];
	struct option lo[CLI_MAX_OPTS + 1];
	char so[2 * CLI_MAX_OPTS + 4] = "-:", *s = so + 2;
	unsigned int n = cli_all(c, v, CLI_MAX_OPTS), i;
	int npos = 1, id, ret;

	for (i = 0; i < n; i++) {
		lo[i] = (struct option){ v[i]->name, v[i]->has_arg, NULL, v[i]->id };
		if (v[i]->id > 0 && v[i]->id < CLI_LONG) {
			*s++ = (char)v[i]->id;
			if (v[i]->has_arg == required_argument)
				*s++ = ':';
		}
	}
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	*s = '\0';
	opterr = 0;
	optind = 0; /* full reinitialisation: handlers may run more than once (unit tests) */
	/* "-": positional arguments come back as id 1, in order, so nothing is permuted. */
	while ((id = getopt_long(*argc, argv, so, lo, NULL)) != -1) {
		const char *opt = argv[optind - 1];

		if (id == 1) {
			argv[npos++] = optarg;
			continue;
		}
		if (id == '?') {
			if (optopt >= CLI_LONG || (optopt && !strncmp(opt, "--", 2)))
				snprintf(err, errlen, "option '%.*s' takes no value",
					 (int)strcspn(opt, "="), opt);
			else if (optopt)
				snprintf(err, errlen, "unknown option '-%c'", optopt);
			else
				snprintf(err, errlen, "unknown option '%s'", opt);
			return -EINVAL;
		}
		if (id == ':') {
			snprintf(err, errlen, "option '%s' needs a value", opt);
			return -EINVAL;
		}
		if (id == 'h')
			return CLI_HELP;
		ret = fn ? fn(ctx, id, optarg, err, errlen) : 0; /* NULL: only --help */
		if (ret)
			return ret < 0 ? ret : -EINVAL;
	}
	while (optind < *argc) /* after "--" */
		argv[npos++] = argv[optind++];
	argv[npos] = NULL;
	*argc = npos;
	return 0;
}

bool cli_args(const struct cli_cmd *c, int *argc, char **argv, cli_opt_fn fn, void *ctx, int *rc)
{
	char err[512] = "";
	int ret = cli_parse(c, argc, argv, fn, ctx, err, sizeof(err));

	if (ret == CLI_HELP) {
		cli_usage(stdout, c);
		*rc = EXIT_OK;
		return true;
	}
	if (ret) {
		*rc = cli_usage_err(c, "%s", err);
		return true;
	}
	return false;
}

int cli_usage_err(const struct cli_cmd *c, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	et_err("%s: %s (see 'ethtune %s --help')", c->name, msg, c->name);
	return EXIT_USAGE;
}

void cli_usage(FILE *f, const struct cli_cmd *c)
{
	const struct cli_opt *v[CLI_MAX_OPTS];
	unsigned int n = cli_all(c, v, CLI_MAX_OPTS), i;

	fprintf(f, "usage: ethtune %s %s%s[OPTION]...\n", c->name, c->synopsis,
		c->synopsis[0] ? " " : "");
	fprintf(f, "options:\n");
	for (i = 0; i < n; i++) {
		char left[64];
		int k;

		k = snprintf(left, sizeof(left), "%c%c%s--%s", v[i]->id < CLI_LONG ? '-' : ' ',
			     v[i]->id < CLI_LONG ? v[i]->id : ' ',
			     v[i]->id < CLI_LONG ? ", " : "  ", v[i]->name);
		if (v[i]->has_arg == required_argument && k > 0 && k < (int)sizeof(left))
			snprintf(left + k, sizeof(left) - k, " %s", v[i]->metavar);
		fprintf(f, "  %-28s %s\n", left, v[i]->help);
	}
	fprintf(f, "global options (anywhere): -j, --json  -n, --netns NS  --key-file F  "
		   "-v, --verbose\n");
}

/* ---- bash completion ---- */

static void words(FILE *f, const struct cli_cmd *c, bool with_arg, const char *metavar)
{
	const struct cli_opt *v[CLI_MAX_OPTS];
	unsigned int n = cli_all(c, v, CLI_MAX_OPTS), i;
	const char *sep = "";

	for (i = 0; i < n; i++) {
		if (with_arg && v[i]->has_arg != required_argument)
			continue;
		if (metavar && (!v[i]->metavar || strcmp(v[i]->metavar, metavar)))
			continue;
		fprintf(f, "%s--%s", sep, v[i]->name);
		sep = " ";
		if (v[i]->id < CLI_LONG)
			fprintf(f, " -%c", v[i]->id);
	}
}

/* A metavar that is a choice of lower-case words ("on|off"): the words, space-separated. */
static bool choices(const char *metavar, char *buf, size_t len)
{
	size_t i;

	if (!metavar || !strchr(metavar, '|') || strlen(metavar) >= len)
		return false;
	for (i = 0; metavar[i]; i++) {
		if (metavar[i] == '|')
			buf[i] = ' ';
		else if ((metavar[i] >= 'a' && metavar[i] <= 'z') || metavar[i] == '-')
			buf[i] = metavar[i];
		else
			return false;
	}
	buf[i] = '\0';
	return true;
}

/* What an option's value completes to: its choices, device or namespace names. */
static void values(FILE *f, const struct cli_cmd *c)
{
	const struct cli_opt *v[CLI_MAX_OPTS];
	unsigned int n = cli_all(c, v, CLI_MAX_OPTS), i;
	bool any = false;
	char w[128];

	for (i = 0; i < n; i++) {
		const char *m = v[i]->metavar, *list;

		if (v[i]->has_arg != required_argument)
			continue;
		if (choices(m, w, sizeof(w)))
			list = w;
		else if (!strcmp(m, "DEV"))
			list = "$(ls /sys/class/net 2>/dev/null)";
		else if (!strcmp(m, "NS"))
			list = "$(ls /run/netns 2>/dev/null)";
		else
			continue;
		if (!any)
			fprintf(f, "\t\tcase $prev in\n");
		any = true;
		fprintf(f, "\t\t--%s) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return ;;\n",
			v[i]->name, list);
	}
	if (any)
		fprintf(f, "\t\tesac\n");
}

void cli_completion_bash(FILE *f)
{
	const struct cli_cmd *const *c;

	fprintf(f, "# bash completion for ethtune(8), generated by 'ethtune completion bash'\n"
		   "_ethtune()\n{\n"
		   "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
		   "\tlocal globals='--json -j --netns -n --key-file --verbose -v --help -h "
		   "--version'\n"
		   "\tlocal cmd='' i opts='' argopts='' fileopts='' subs='' devs=0\n"
		   "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
		   "\t\tcase ${COMP_WORDS[i]} in\n"
		   "\t\t--netns | -n | --key-file) ((i++)) ;;\n"
		   "\t\t-*) ;;\n"
		   "\t\t*) cmd=${COMP_WORDS[i]}; break ;;\n"
		   "\t\tesac\n"
		   "\tdone\n"
		   "\tcase $prev in\n"
		   "\t--netns | -n)\n"
		   "\t\tCOMPREPLY=($(compgen -W \"$(ls /run/netns 2>/dev/null)\" -- \"$cur\"))\n"
		   "\t\treturn ;;\n"
		   "\t--key-file)\n"
		   "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
		   "\t\treturn ;;\n"
		   "\tesac\n"
		   "\tif [ -z \"$cmd\" ]; then\n"
		   "\t\tCOMPREPLY=($(compgen -W \"");
	for (c = cli_commands; *c; c++)
		fprintf(f, "%s ", (*c)->name);
	fprintf(f, "help version $globals\" -- \"$cur\"))\n"
		   "\t\treturn\n"
		   "\tfi\n"
		   "\tcase $cmd in\n");
	for (c = cli_commands; *c; c++) {
		fprintf(f, "\t%s)\n\t\topts='", (*c)->name);
		words(f, *c, false, NULL);
		fprintf(f, "'\n\t\targopts='");
		words(f, *c, true, NULL);
		fprintf(f, "'\n\t\tfileopts='");
		words(f, *c, true, "FILE");
		fprintf(f, "'\n\t\tsubs='%s'\n\t\tdevs=%d\n", (*c)->subcmds ? (*c)->subcmds : "",
			(*c)->dev_arg);
		values(f, *c);
		fprintf(f, "\t\t;;\n");
	}
	fprintf(f, "\t*) return ;;\n"
		   "\tesac\n"
		   "\tif [[ \" $fileopts \" == *\" $prev \"* ]]; then\n"
		   "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
		   "\t\treturn\n"
		   "\tfi\n"
		   "\t[[ \" $argopts \" == *\" $prev \"* ]] && return\n"
		   "\tif [[ $cur == -* ]]; then\n"
		   "\t\tCOMPREPLY=($(compgen -W \"$opts $globals\" -- \"$cur\"))\n"
		   "\t\treturn\n"
		   "\tfi\n"
		   "\t[ \"$devs\" = 1 ] && subs=\"$subs $(ls /sys/class/net 2>/dev/null)\"\n"
		   "\tCOMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n"
		   "}\n"
		   "complete -F _ethtune ethtune\n");
}
