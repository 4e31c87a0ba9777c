/* The environment a measurement ran in, for its JSON document: kernel, host, sysctls, device. */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "out/json_print.h"
#include "probe/probe.h"
#include "state/show.h"
#include "util/ethtune.h"

static const char *const sysctls[] = {
	"net/core/rmem_max",
	"net/core/wmem_max",
	"net/core/rmem_default",
	"net/core/wmem_default",
	"net/core/default_qdisc",
	"net/core/busy_poll",
	"net/core/busy_read",
	"net/core/netdev_max_backlog",
	"net/ipv4/tcp_rmem",
	"net/ipv4/tcp_wmem",
	"net/ipv4/tcp_mem",
	"net/ipv4/tcp_congestion_control",
	"net/ipv4/tcp_limit_output_bytes",
	"net/ipv4/tcp_autocorking",
	"net/ipv4/tcp_notsent_lowat",
	"net/ipv4/tcp_moderate_rcvbuf",
	"net/ipv4/tcp_shrink_window",
	"net/ipv4/tcp_tso_win_divisor",
	"net/ipv4/tcp_min_tso_segs",
	"net/ipv4/tcp_pacing_ss_ratio",
	"net/ipv4/tcp_pacing_ca_ratio",
	"net/ipv4/tcp_no_metrics_save",
	"net/ipv4/tcp_timestamps",
	"net/ipv4/tcp_sack",
	"net/ipv4/tcp_ecn",
	"net/ipv4/tcp_adv_win_scale",
	"net/ipv4/tcp_mtu_probing",
	NULL,
};

void probe_print_environment(const char *dev, const char *peer_version)
{
	char path[128], buf[256], key[64], ts[32], *p;
	struct utsname u;
	time_t now;
	unsigned int i;

	uname(&u);
	now = time(NULL);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	open_json_object("environment");
	print_string(PRINT_JSON, "date", NULL, ts);
	print_string(PRINT_JSON, "ethtune-version", NULL, ETHTUNE_VERSION);
	print_string(PRINT_JSON, "kernel", NULL, u.release);
	print_string(PRINT_JSON, "kernel-build", NULL, u.version);
	print_string(PRINT_JSON, "machine", NULL, u.machine);
	print_string(PRINT_JSON, "hostname", NULL, u.nodename);
	print_uint(PRINT_JSON, "cpus", NULL, sysconf(_SC_NPROCESSORS_ONLN));
	print_string(PRINT_JSON, "netns", NULL, et_opts.netns ? et_opts.netns : "");
	print_string(PRINT_JSON, "peer-version", NULL, peer_version);
	open_json_object("sysctls");
	for (i = 0; sysctls[i]; i++) {
		snprintf(path, sizeof(path), "/proc/sys/%s", sysctls[i]);
		if (read_file_str(path, buf, sizeof(buf)))
			continue;
		buf[strcspn(buf, "\n")] = 0;
		for (p = buf; *p; p++)
			if (*p == '\t')
				*p = ' ';
		snprintf(key, sizeof(key), "%s", sysctls[i]);
		for (p = key; *p; p++)
			if (*p == '/')
				*p = '.';
		print_string(PRINT_JSON, key, NULL, buf);
	}
	close_json_object();
	if (dev && dev[0]) {
		open_json_object("device");
		print_string(PRINT_JSON, "name", NULL, dev);
		show_device(dev);
		close_json_object();
	}
	close_json_object();
}
