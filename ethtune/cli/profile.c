/* ethtune profile list|show|check|match|apply|verify|export|merge: profiles from the command
 * line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "util/ethtune.h"
#include "knowledge/profile.h"
#include "analysis/merge.h"
#include "analysis/thresholds.h"
#include "out/html.h"
#include "out/json_print.h"

enum {
	O_FORCE = CLI_LONG,
	O_DRY_RUN,
	O_TO,
	O_DEV,
	O_OUT,
	O_FOR_VERSION,
	O_FROM_DEVICE,
	O_SPLIT,
	O_ALLOW_PARTIAL,
	O_SPLIT_BY,
	O_MIN_HOSTS,
	O_ALPHA,
	O_HTML,
	O_NOPTS,
};

static const struct cli_opt profile_opts[] = {
	{ "force", O_FORCE, no_argument, NULL, "apply/verify: use NAME even if it does not match" },
	{ "dry-run", O_DRY_RUN, no_argument, NULL,
	  "apply, export: print what would change or be written, change and write nothing" },
	{ "to", O_TO, required_argument, "FORMAT",
	  "export: systemd-link, networkmanager, tuned, ifupdown, udev, tmpfiles or sysctl" },
	{ "dev", O_DEV, required_argument, "DEV",
	  "export: the device it is for (its name, the .link it has today)" },
	{ "out", O_OUT, required_argument, "FILE",
	  "export: write to FILE or into a directory (default: standard output); merge: the "
	  "directory the profiles are written to" },
	{ "for-version", O_FOR_VERSION, required_argument, "V",
	  "export: the consumer's version (default: the one installed here)" },
	{ "from-device", O_FROM_DEVICE, required_argument, "DEV",
	  "export: what DEV has set now instead of a profile" },
	{ "split", O_SPLIT, no_argument, NULL,
	  "export: what FORMAT cannot carry goes to tmpfiles, sysctl or udev files" },
	{ "allow-partial", O_ALLOW_PARTIAL, no_argument, NULL,
	  "export: write what FORMAT carries, list the rest, exit 0; merge: use the results that "
	  "load when others are skipped, write the profiles, exit 0" },
	{ "split-by", O_SPLIT_BY, required_argument, "BY",
	  "merge: firmware or kernel: a model per version of it too" },
	{ "min-hosts", O_MIN_HOSTS, required_argument, "N",
	  "merge: fewest hosts, outliers left out, a model's profile needs (default 3)" },
	{ "alpha", O_ALPHA, required_argument, "A",
	  "merge: family-wise level of the outlier test over a model's hosts (default 0.05)" },
	{ "html", O_HTML, required_argument, "FILE",
	  "merge: also write the report as one self-contained HTML page" },
	CLI_END,
};

const struct cli_cmd cli_profile = {
	.name = "profile",
	.fn = cmd_profile,
	.synopsis = "list | show NAME | check FILE... | match DEV | apply DEV [NAME] |\n"
		    "       verify DEV [NAME] | export NAME|FILE|--from-device DEV --to FORMAT |\n"
		    "       merge DIR... [--out DIR]",
	.opts = { profile_opts },
	.subcmds = "list show check match apply verify export merge",
	.dev_arg = true,
};

struct profile_args {
	bool force, dry;
	int seq[32]; /* the options given, in order */
	unsigned int nseq;
	struct exp_opts x;
	struct merge_opts m;
	const char *to;
};

static const char *const opt_names[O_NOPTS - CLI_LONG] = {
	[O_FORCE - CLI_LONG] = "--force",
	[O_DRY_RUN - CLI_LONG] = "--dry-run",
	[O_TO - CLI_LONG] = "--to",
	[O_DEV - CLI_LONG] = "--dev",
	[O_OUT - CLI_LONG] = "--out",
	[O_FOR_VERSION - CLI_LONG] = "--for-version",
	[O_FROM_DEVICE - CLI_LONG] = "--from-device",
	[O_SPLIT - CLI_LONG] = "--split",
	[O_ALLOW_PARTIAL - CLI_LONG] = "--allow-partial",
	[O_SPLIT_BY - CLI_LONG] = "--split-by",
	[O_MIN_HOSTS - CLI_LONG] = "--min-hosts",
	[O_ALPHA - CLI_LONG] = "--alpha",
	[O_HTML - CLI_LONG] = "--html",
};

/* The first option given that sub does not take, or NULL. */
static const char *foreign_opt(const struct profile_args *a, const char *sub)
{
	static const struct {
		const char *sub;
		int opts[8];
	} takes[] = {
		{ "apply", { O_FORCE, O_DRY_RUN } },
		{ "verify", { O_FORCE } },
		{ "export",
		  { O_DRY_RUN, O_TO, O_DEV, O_OUT, O_FOR_VERSION, O_FROM_DEVICE, O_SPLIT,
		    O_ALLOW_PARTIAL } },
		{ "merge", { O_OUT, O_ALLOW_PARTIAL, O_SPLIT_BY, O_MIN_HOSTS, O_ALPHA, O_HTML } },
	};
	unsigned int i, j, k;

	for (i = 0; i < a->nseq; i++) {
		bool ok = false;

		for (j = 0; j < sizeof(takes) / sizeof(takes[0]); j++)
			for (k = 0; k < 8 && !strcmp(takes[j].sub, sub); k++)
				ok |= takes[j].opts[k] == a->seq[i];
		if (!ok)
			return opt_names[a->seq[i] - CLI_LONG];
	}
	return NULL;
}

static int profile_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	struct profile_args *a = ctx;
	char *end;

	if (a->nseq < sizeof(a->seq) / sizeof(a->seq[0]))
		a->seq[a->nseq++] = id;
	switch (id) {
	case O_FORCE:
		a->force = true;
		break;
	case O_DRY_RUN:
		a->dry = true;
		break;
	case O_TO:
		a->to = arg;
		break;
	case O_DEV:
		a->x.dev = arg;
		break;
	case O_OUT:
		a->x.out = arg;
		a->m.out = arg;
		break;
	case O_FOR_VERSION:
		a->x.version = arg;
		break;
	case O_FROM_DEVICE:
		a->x.from_dev = arg;
		break;
	case O_SPLIT:
		a->x.split = true;
		break;
	case O_ALLOW_PARTIAL:
		a->x.allow_partial = true;
		a->m.allow_partial = true;
		break;
	case O_SPLIT_BY:
		if (strcmp(arg, "firmware") && strcmp(arg, "kernel")) {
			snprintf(err, errlen, "--split-by: '%s' is not firmware or kernel", arg);
			return -EINVAL;
		}
		a->m.split = !strcmp(arg, "firmware") ? MERGE_SPLIT_FIRMWARE : MERGE_SPLIT_KERNEL;
		break;
	case O_MIN_HOSTS:
		if (parse_u32(arg, &a->m.min_hosts) || a->m.min_hosts < 1 ||
		    a->m.min_hosts > 1000000) {
			snprintf(err, errlen, "--min-hosts: '%s' is not a count of 1 or more", arg);
			return -EINVAL;
		}
		break;
	case O_HTML:
		a->m.html = arg;
		return html_check_path(arg, err, errlen);
	case O_ALPHA:
		a->m.alpha = strtod(arg, &end);
		if (end == arg || *end || !(a->m.alpha > 0 && a->m.alpha < 1)) {
			snprintf(err, errlen, "--alpha: '%s' is not a level between 0 and 1", arg);
			return -EINVAL;
		}
		break;
	}
	return 0;
}

/* ethtune profile merge: many hosts' tune results into one measured profile per NIC model. */
static int profile_merge_cmd(struct profile_args *a, int argc, char **argv)
{
	struct merge_run r;
	int ret, rc;

	if (argc < 3)
		return cli_usage_err(&cli_profile,
				     "merge: usage: ethtune profile merge DIR... [--out DIR]");
	a->m.paths = argv + 2;
	a->m.npaths = (unsigned int)(argc - 2);
	if (a->m.html)
		json_record();
	ret = merge_run(&a->m, &r);
	if (!ret && a->m.html) {
		int hret = html_report_recorded(a->m.html, HTML_MERGE);

		if (hret) {
			et_err("profile merge: cannot write %s: %s", a->m.html, strerror(-hret));
			ret = hret;
		}
	}
	/* a path that cannot be read, or holds no result file, is a bad argument (as compare's) */
	rc = !ret ? (r.nskip && !a->m.allow_partial ? EXIT_FAIL : EXIT_OK)
	     : ret == -ENOENT || ret == -ENOTDIR || ret == -EACCES ? EXIT_USAGE
								   : EXIT_FAIL;
	merge_run_free(&r);
	return rc;
}

/* ethtune profile export: the files that persist a profile, for one consumer. */
static int profile_export_cmd(struct profile_args *a, int argc, char **argv)
{
	unsigned int dropped = 0;
	int ret;

	if (!a->to)
		return cli_usage_err(&cli_profile,
				     "export: --to FORMAT is needed (systemd-link, networkmanager, "
				     "tuned, ifupdown, udev, tmpfiles or sysctl)");
	a->x.fmt = exp_fmt_by_name(a->to);
	if (a->x.fmt < 0)
		return cli_usage_err(&cli_profile,
				     "export: unknown format '%s' (expected systemd-link, "
				     "networkmanager, tuned, ifupdown, udev, tmpfiles or sysctl)",
				     a->to);
	if (a->force)
		return cli_usage_err(&cli_profile, "export: unknown option '--force'");
	if (foreign_opt(a, "export"))
		return cli_usage_err(&cli_profile, "export: unknown option '%s'",
				     foreign_opt(a, "export"));
	if (argc > 3 || (argc == 3 && a->x.from_dev))
		return cli_usage_err(&cli_profile, "export: unexpected argument '%s'",
				     argv[a->x.from_dev ? 2 : 3]);
	if (argc < 3 && !a->x.from_dev)
		return cli_usage_err(
			&cli_profile,
			"export: usage: ethtune profile export NAME|FILE|--from-device "
			"DEV --to FORMAT");
	if (a->x.fmt == EXP_IFUPDOWN && !a->x.dev && !a->x.from_dev)
		return cli_usage_err(
			&cli_profile,
			"export: an ifupdown stanza names its interface: give --dev DEV");
	a->x.name = argc == 3 ? argv[2] : NULL;
	a->x.dry = a->dry;
	ret = profile_export(&a->x, &dropped);
	return ret || (dropped && !a->x.allow_partial) ? EXIT_FAIL : EXIT_OK;
}

int cmd_profile(int argc, char **argv)
{
	struct profile_args a = {
		.m = { .min_hosts = MERGE_MIN_HOSTS_DEFAULT, .alpha = MERGE_ALPHA_DEFAULT },
	};
	const char *sub, *dev, *name, *bad;
	unsigned int drift = 0;
	int i, rc, ret = 0;

	if (argc < 2) {
		cli_usage(stderr, &cli_profile);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help")) {
		cli_usage(stdout, &cli_profile);
		return EXIT_OK;
	}
	if (cli_args(&cli_profile, &argc, argv, profile_opt, &a, &rc))
		return rc;
	sub = argc > 1 ? argv[1] : "";
	if (strcmp(sub, "list") && strcmp(sub, "show") && strcmp(sub, "check") &&
	    strcmp(sub, "match") && strcmp(sub, "apply") && strcmp(sub, "verify") &&
	    strcmp(sub, "export") && strcmp(sub, "merge"))
		return cli_usage_err(&cli_profile, "unknown subcommand '%s'", sub);
	/* export names its own first (--to's absence, --force) */
	bad = strcmp(sub, "export") ? foreign_opt(&a, sub) : NULL;
	if (bad)
		return cli_usage_err(&cli_profile, "%s: unknown option '%s'", sub, bad);
	if (!strcmp(sub, "export"))
		return profile_export_cmd(&a, argc, argv);
	if (!strcmp(sub, "merge"))
		return profile_merge_cmd(&a, argc, argv);
	if (!strcmp(sub, "list")) {
		if (argc > 2)
			return cli_usage_err(&cli_profile, "list: unexpected argument '%s'",
					     argv[2]);
		return profile_print_list() ? EXIT_FAIL : EXIT_OK;
	}
	if (!strcmp(sub, "show") || !strcmp(sub, "check")) {
		if (argc < 3 || (!strcmp(sub, "show") && argc != 3))
			return cli_usage_err(&cli_profile, "usage: ethtune profile %s",
					     !strcmp(sub, "show") ? "show NAME" : "check FILE...");
		for (i = 2; i < argc && !ret; i++)
			ret = profile_print(argv[i], !strcmp(sub, "check"));
		return ret ? EXIT_FAIL : EXIT_OK;
	}
	if (argc < 3)
		return cli_usage_err(&cli_profile, "%s: missing device", sub);
	if (argc > (!strcmp(sub, "match") ? 3 : 4))
		return cli_usage_err(&cli_profile, "%s: unexpected argument '%s'", sub,
				     argv[!strcmp(sub, "match") ? 3 : 4]);
	dev = argv[2];
	name = argc > 3 ? argv[3] : NULL;
	if (!strcmp(sub, "match"))
		return profile_print_matches(dev) ? EXIT_FAIL : EXIT_OK;
	if (!strcmp(sub, "apply"))
		return profile_apply(dev, name, a.force, a.dry) ? EXIT_FAIL : EXIT_OK;
	/* verify: settings that drifted from the profile fail the check */
	ret = profile_verify(dev, name, a.force, &drift);
	return ret || drift ? EXIT_FAIL : EXIT_OK;
}
