/* ethtune set and ethtune restore: journaled device changes and putting them back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>

#include "cli/commands.h"
#include "state/devset.h"
#include "util/ethtune.h"
#include "state/journal.h"
#include "state/undo.h"
#include "out/json_print.h"
#include "cli/showext.h"

static void warn_line(const char *msg)
{
	et_warn("%s", msg);
}

int cmd_set(int argc, char **argv)
{
	char err[768];
	const char *dev;
	uint32_t hold = 0;
	int i, n = 0, ret;
	char **args;

	if (argc < 3) {
		et_err("set: usage: ethtune set DEV coalesce|ring|channels KEY VAL... | feature "
		       "NAME "
		       "on|off | priv-flag NAME on|off | mtu N | gso-max-size N | gso-max-segs N | "
		       "gso-ipv4-max-size N | txqueuelen N | admin-state up|down [--for SECONDS] "
		       "[--allow-link-down]");
		return EXIT_USAGE;
	}
	dev = argv[1];
	args = calloc(argc, sizeof(char *));
	if (!args)
		return EXIT_FAIL;
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--for")) {
			if (i + 1 >= argc || parse_u32(argv[i + 1], &hold) || !hold ||
			    hold > 86400) {
				et_err("set: --for needs a number of seconds from 1 to 86400");
				free(args);
				return EXIT_USAGE;
			}
			i++;
			continue;
		}
		if (!strcmp(argv[i], "--allow-link-down")) {
			devset_allow_link_down(true);
			continue;
		}
		args[n++] = argv[i];
	}
	if (!have_cap_net_admin()) {
		et_err("set: changing %s needs CAP_NET_ADMIN (run as root)", dev);
		free(args);
		return EXIT_FAIL;
	}
	if (enter_netns_opt()) {
		free(args);
		return EXIT_FAIL;
	}
	if (strlen(dev) >= IFNAMSIZ || !if_nametoindex(dev)) {
		report_missing_dev(dev);
		free(args);
		return EXIT_FAIL;
	}
	if (hold)
		undo_temp_begin();
	ret = devset_apply(dev, n, args, err, sizeof(err), warn_line);
	free(args);
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
		et_err("restore: cannot read the journal %s: %s", journal_path(), strerror(-ret));
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

int cmd_restore(int argc, char **argv)
{
	const char *dev = NULL;
	bool list = false;
	int i, restored, kept, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list"))
			list = true;
		else if (argv[i][0] == '-') {
			et_err("restore: unknown option '%s'", argv[i]);
			return EXIT_USAGE;
		} else if (!dev)
			dev = argv[i];
		else {
			et_err("restore: unexpected argument '%s'", argv[i]);
			return EXIT_USAGE;
		}
	}
	if (list)
		return restore_list(dev);
	if (!have_cap_net_admin()) {
		et_err("restore: needs CAP_NET_ADMIN (run as root)");
		return EXIT_FAIL;
	}
	/* Entries name their own namespace and restore enters it; --netns only selects which
	 * entries (restore itself stays in the namespace it started in). */
	ret = undo_restore(
		&(struct undo_sel){ .which = UNDO_MATCH, .dev = dev, .netns = et_opts.netns },
		&restored, &kept);
	if (ret && ret != -EIO) {
		et_err("restore: cannot use the journal %s: %s", journal_path(), strerror(-ret));
		return EXIT_FAIL;
	}
	et_info("ethtune: restored %d value(s)%s%s", restored, kept ? ", kept " : "",
		kept ? "entries that could not be restored (see restore --list)" : "");
	return ret || kept ? EXIT_FAIL : EXIT_OK;
}
