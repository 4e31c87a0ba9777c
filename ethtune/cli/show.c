/* ethtune show: everything that governs TX completion on one device, in text or JSON. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "out/json_print.h"
#include "state/show.h"
#include "util/ethtune.h"

const struct cli_cmd cli_show = {
	.name = "show",
	.fn = cmd_show,
	.synopsis = "DEV",
	.opts = { NULL },
	.dev_arg = true,
};

int cmd_show(int argc, char **argv)
{
	const char *dev;
	int ret;

	if (cli_args(&cli_show, &argc, argv, NULL, NULL, &ret))
		return ret;
	if (argc > 2) {
		et_err("show: unexpected argument '%s' (one device at a time)", argv[2]);
		return EXIT_USAGE;
	}
	if (argc < 2) {
		et_err("show: missing device (usage: ethtune show DEV [--json] [--netns NS])");
		return EXIT_USAGE;
	}
	dev = argv[1];
	if (enter_netns_opt())
		return EXIT_FAIL;
	if (strlen(dev) >= IFNAMSIZ || !if_nametoindex(dev)) {
		report_missing_dev(dev);
		return EXIT_FAIL;
	}
	new_json_obj(et_opts.json);
	ret = show_device(dev);
	delete_json_obj();
	if (ret == -ENODEV) {
		report_missing_dev(dev);
		return EXIT_FAIL;
	}
	if (ret) {
		et_err("show %s: %s", dev, strerror(-ret));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}
