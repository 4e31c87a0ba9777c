/* ethtune profile list|show|check|match|apply|verify: tuning profiles from the command line. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "util/ethtune.h"
#include "knowledge/profile.h"

enum { O_FORCE = CLI_LONG, O_DRY_RUN };

static const struct cli_opt profile_opts[] = {
	{ "force", O_FORCE, no_argument, NULL, "apply/verify: use NAME even if it does not match" },
	{ "dry-run", O_DRY_RUN, no_argument, NULL,
	  "apply: print what would change, change nothing" },
	CLI_END,
};

const struct cli_cmd cli_profile = {
	.name = "profile",
	.fn = cmd_profile,
	.synopsis = "list | show NAME | check FILE... | match DEV | apply DEV [NAME] |\n"
		    "       verify DEV [NAME]",
	.opts = { profile_opts },
	.subcmds = "list show check match apply verify",
	.dev_arg = true,
};

struct profile_args {
	bool force, dry;
};

static int profile_opt(void *ctx, int id, const char *arg __attribute__((unused)),
		       char *err __attribute__((unused)), size_t errlen __attribute__((unused)))
{
	struct profile_args *a = ctx;

	if (id == O_FORCE)
		a->force = true;
	else
		a->dry = true;
	return 0;
}

int cmd_profile(int argc, char **argv)
{
	struct profile_args a = {};
	const char *sub, *dev, *name;
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
	    strcmp(sub, "match") && strcmp(sub, "apply") && strcmp(sub, "verify"))
		return cli_usage_err(&cli_profile, "unknown subcommand '%s'", sub);
	if ((a.force && (!strcmp(sub, "list") || !strcmp(sub, "show") || !strcmp(sub, "check") ||
			 !strcmp(sub, "match"))) ||
	    (a.dry && strcmp(sub, "apply")))
		return cli_usage_err(&cli_profile, "%s: unknown option '%s'", sub,
				     a.force && strcmp(sub, "apply") && strcmp(sub, "verify")
					     ? "--force"
					     : "--dry-run");
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
