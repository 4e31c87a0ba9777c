/* ethtune set and ethtune restore: journaled device changes and putting them back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "state/devset.h"
#include "util/ethtune.h"
#include "state/journal.h"
#include "state/undo.h"
#include "out/json_print.h"

static void warn_line(const char *msg)
{
	et_warn("%s", msg);
}

enum { O_FOR = CLI_LONG, O_ALLOW_LINK_DOWN, O_LIST, O_FORGET };

static const struct cli_opt set_opts[] = {
	{ "for", O_FOR, required_argument, "SECONDS",
	  "hold the change this long (1-86400), then restore it" },
	{ "allow-link-down", O_ALLOW_LINK_DOWN, no_argument, NULL,
	  "allow changes that take the link down" },
	CLI_END,
};

const struct cli_cmd cli_set = {
	.name = "set",
	.fn = cmd_set,
	.synopsis = "DEV coalesce|ring|channels KEY VAL... | feature NAME on|off |\n"
		    "       priv-flag NAME on|off | napi [ID|all] KEY VAL... |\n"
		    "       bql [tx-N|all] KEY VAL... | mtu N | gso-max-size N | gso-max-segs N |\n"
		    "       gso-ipv4-max-size N | txqueuelen N | admin-state up|down",
	.opts = { set_opts },
	.subcmds =
		"coalesce ring channels feature priv-flag napi bql mtu gso-max-size gso-max-segs "
		"gso-ipv4-max-size txqueuelen admin-state",
	.dev_arg = true,
};

static int set_opt(void *ctx, int id, const char *arg, char *err, size_t errlen)
{
	uint32_t *hold = ctx;

	if (id == O_ALLOW_LINK_DOWN) {
		devset_allow_link_down(true);
		return 0;
	}
	if (parse_u32(arg, hold) || !*hold || *hold > 86400) {
		snprintf(err, errlen, "--for needs a number of seconds from 1 to 86400");
		return -EINVAL;
	}
	return 0;
}

int cmd_set(int argc, char **argv)
{
	char err[768];
	const char *dev;
	uint32_t hold = 0;
	int n, ret;
	char **args;

	if (cli_args(&cli_set, &argc, argv, set_opt, &hold, &ret))
		return ret;
	if (argc < 3) {
		et_err("set: usage: ethtune set DEV coalesce|ring|channels KEY VAL... | feature "
		       "NAME on|off | priv-flag NAME on|off | napi [ID|all] KEY VAL... | "
		       "bql [tx-N|all] KEY VAL... | mtu N | gso-max-size N | gso-max-segs N | "
		       "gso-ipv4-max-size N | txqueuelen N | admin-state up|down [--for SECONDS] "
		       "[--allow-link-down]");
		return EXIT_USAGE;
	}
	dev = argv[1];
	args = argv + 2;
	n = argc - 2;
	if (!have_cap_net_admin()) {
		et_err("set: changing %s needs CAP_NET_ADMIN (run as root)", dev);
		return EXIT_FAIL;
	}
	if (enter_netns_opt())
		return EXIT_FAIL;
	if (strlen(dev) >= IFNAMSIZ || !if_nametoindex(dev)) {
		report_missing_dev(dev);
		return EXIT_FAIL;
	}
	if (hold)
		undo_temp_begin();
	ret = devset_apply(dev, n, args, err, sizeof(err), warn_line);
	if (ret) {
		et_err("set %s: %s", dev, err);
		return ret == -EINVAL || ret == -ERANGE ? EXIT_USAGE : EXIT_FAIL;
	}
	if (hold) {
		et_info("ethtune: holding the change on %s for %u s (Ctrl-C restores it now)", dev,
			hold);
		/* a stop signal ends the sleep early; undo_temp_end() then dies of it */
		if (!et_stop_signal())
			sleep(hold);
		ret = undo_temp_end();
		return ret ? EXIT_FAIL : EXIT_OK;
	}
	return EXIT_OK;
}

static int restore_list(const char *dev)
{
	struct journal_entry *v;
	int n, i, ret = journal_load(&v, &n);

	if (ret) {
		et_err("restore: cannot read the journal %s: %s", journal_path(),
		       journal_strerror(ret));
		return EXIT_FAIL;
	}
	new_json_obj(et_opts.json);
	open_json_array(PRINT_JSON, "journal");
	if (!n)
		print_text("journal %s is empty\n", journal_path());
	for (i = 0; i < n; i++) {
		if ((dev && strcmp(dev, v[i].dev)) ||
		    (et_opts.netns && strcmp(et_opts.netns, v[i].netns)))
			continue;
		open_json_object(NULL);
		print_string(PRINT_ANY, "netns", "%-10s ", v[i].netns[0] ? v[i].netns : "-");
		print_string(PRINT_ANY, "dev", "%-12s ", v[i].dev[0] ? v[i].dev : "-");
		print_string(PRINT_ANY, "object", "%-10s ", v[i].object);
		print_string(PRINT_ANY, "key", "%-24s ", v[i].key);
		print_string(PRINT_ANY, "old", "was %s", v[i].old);
		print_bool(PRINT_JSON, "temp", NULL, v[i].temp);
		print_text("%s\n", v[i].temp ? " (temporary)" : "");
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	delete_json_obj();
	free(v);
	return EXIT_OK;
}

static const struct cli_opt restore_opts[] = {
	{ "list", O_LIST, no_argument, NULL, "list the journal instead of restoring" },
	{ "forget", O_FORGET, no_argument, NULL,
	  "also drop the entries of devices and namespaces that are gone" },
	CLI_END,
};

const struct cli_cmd cli_restore = {
	.name = "restore",
	.fn = cmd_restore,
	.synopsis = "[DEV]",
	.opts = { restore_opts },
	.dev_arg = true,
};

struct restore_args {
	bool list, forget;
};

static int restore_opt(void *ctx, int id, const char *arg __attribute__((unused)),
		       char *err __attribute__((unused)), size_t errlen __attribute__((unused)))
{
	struct restore_args *a = ctx;

	if (id == O_LIST)
		a->list = true;
	else
		a->forget = true;
	return 0;
}

int cmd_restore(int argc, char **argv)
{
	struct restore_args a = {};
	const char *dev = NULL;
	int restored, kept, ret;

	if (cli_args(&cli_restore, &argc, argv, restore_opt, &a, &ret))
		return ret;
	if (argc > 2) {
		et_err("restore: unexpected argument '%s'", argv[2]);
		return EXIT_USAGE;
	}
	dev = argc > 1 ? argv[1] : NULL;
	if (a.list && a.forget) {
		et_err("restore: --list and --forget exclude each other");
		return EXIT_USAGE;
	}
	if (a.list)
		return restore_list(dev);
	if (!have_cap_net_admin()) {
		et_err("restore: needs CAP_NET_ADMIN (run as root)");
		return EXIT_FAIL;
	}
	/* Entries name their own namespace and restore enters it; --netns only selects which
	 * entries (restore itself stays in the namespace it started in). */
	ret = undo_restore(&(struct undo_sel){ .which = UNDO_MATCH,
					       .dev = dev,
					       .netns = et_opts.netns,
					       .forget = a.forget },
			   &restored, &kept);
	if (ret && ret != -EIO) {
		et_err("restore: cannot use the journal %s: %s", journal_path(),
		       journal_strerror(ret));
		return EXIT_FAIL;
	}
	et_info("ethtune: restored %d value(s)%s%s", restored, kept ? ", kept " : "",
		kept ? "entries that could not be restored (see restore --list)" : "");
	return ret || kept ? EXIT_FAIL : EXIT_OK;
}
