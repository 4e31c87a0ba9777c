/* What drivers/mlx5 knows about an mlx5_core netdev (CQE/EQE modes, flags) and sysfs lookups. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/ethtune.h"
#include "out/json_print.h"
#include "probe/rdma_sysfs.h"
#include "knowledge/drvdb.h"

const char *rdma_sysfs_root = "/sys";

static int read_line(const char *path, char *buf, size_t len)
{
	int ret = read_file_str(path, buf, len);

	if (!ret)
		buf[strcspn(buf, "\n")] = 0;
	return ret;
}

int rdma_sysfs_port_netdev(const char *ibdev, unsigned int port, char *buf, size_t len)
{
	char dir[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d;
	int ret = -ENOENT;

	snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%u/gid_attrs/ndevs",
		 rdma_sysfs_root, ibdev, port);
	d = opendir(dir);
	if (!d)
		return -ENOENT;
	/* Lowest index with a netdev: entries are "0", "1", ...; empty slots read EINVAL. */
	for (unsigned int best = UINT_MAX; (de = readdir(d));) {
		char v[64];
		char *end;
		unsigned long idx = strtoul(de->d_name, &end, 10);

		if (de->d_name[0] == '.' || *end || idx >= best)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (read_line(path, v, sizeof(v)) || !v[0])
			continue;
		snprintf(buf, len, "%s", v);
		best = idx;
		ret = 0;
	}
	closedir(d);
	return ret;
}

/* Does ibdev sit on netdev: rxe/siw "parent" file or a GID's ndev on port 1. */
static bool ibdev_on_netdev(const char *ibdev, const char *netdev)
{
	char path[PATH_MAX], v[64];

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/parent", rdma_sysfs_root, ibdev);
	if (!read_line(path, v, sizeof(v)) && !strcmp(v, netdev))
		return true;
	return !rdma_sysfs_port_netdev(ibdev, 1, v, sizeof(v)) && !strcmp(v, netdev);
}

int rdma_netdev_ibdev(const char *netdev, char *buf, size_t len)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	/* PCI functions (mlx5) list their RDMA device next to the netdev. */
	snprintf(path, sizeof(path), "%s/class/net/%s/device/infiniband", rdma_sysfs_root, netdev);
	d = opendir(path);
	if (d) {
		while ((de = readdir(d)))
			if (de->d_name[0] != '.') {
				snprintf(buf, len, "%s", de->d_name);
				closedir(d);
				return 0;
			}
		closedir(d);
	}
	/* Software devices (rxe, siw) name their netdev. */
	snprintf(path, sizeof(path), "%s/class/infiniband", rdma_sysfs_root);
	d = opendir(path);
	if (!d)
		return -ENOENT;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !ibdev_on_netdev(de->d_name, netdev))
			continue;
		snprintf(buf, len, "%s", de->d_name);
		closedir(d);
		return 0;
	}
	closedir(d);
	return -ENOENT;
}

static int netdev_driver(const char *netdev, char *buf, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	const char *base;

	snprintf(path, sizeof(path), "%s/class/net/%s/device/driver", rdma_sysfs_root, netdev);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = 0;
	base = strrchr(target, '/');
	if (snprintf(buf, len, "%s", base ? base + 1 : target) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

bool mlx5_is_netdev(const char *netdev)
{
	char drv[64];

	return !netdev_driver(netdev, drv, sizeof(drv)) && !strcmp(drv, "mlx5_core");
}

static int pflag(const struct mlx5_pflags *pf, const char *name)
{
	for (unsigned int i = 0; i < pf->n; i++)
		if (!strcmp(pf->name[i], name))
			return pf->on[i];
	return -1;
}

/* CQE mode restarts the moderation timer on every completion; EQE mode starts it at the event. */
static void print_mode(const char *key, const char *title, int cqe)
{
	char fmt[64];

	snprintf(fmt, sizeof(fmt), "  %s: %%s\n", title);
	if (cqe < 0)
		print_na(key, fmt);
	else
		print_string(PRINT_ANY, key, fmt, cqe ? "cqe" : "eqe");
}

int mlx5_show_extra(const char *netdev)
{
	static const char *const dflt_keys[] = { "tx-usecs", "tx-frames" };
	struct mlx5_pflags pf;
	char ibdev[64];
	int tx_cqe, rx_cqe, comp, ret;
	size_t i;

	if (!mlx5_is_netdev(netdev))
		return -ENODEV;
	ret = mlx5_read_pflags(netdev, &pf);
	if (ret)
		pf.n = 0;
	tx_cqe = pflag(&pf, "tx_cqe_moder");
	rx_cqe = pflag(&pf, "rx_cqe_moder");
	comp = pflag(&pf, "rx_cqe_compress");

	open_json_object("mlx5");
	print_text("mlx5:\n");
	print_mode("tx-cq-period-mode", "tx-cq-period-mode", tx_cqe);
	print_mode("rx-cq-period-mode", "rx-cq-period-mode", rx_cqe);
	if (comp < 0)
		print_na("rx-cqe-compress", "  rx-cqe-compress: %s\n");
	else
		print_on_off(PRINT_ANY, "rx-cqe-compress", "  rx-cqe-compress: %s\n", comp);
	/* mlx5e's defaults (en.h) as the driver knowledge records them */
	for (i = 0; i < sizeof(dflt_keys) / sizeof(dflt_keys[0]); i++) {
		char key[32], fmt[48];
		unsigned int v;

		snprintf(key, sizeof(key), "default-%s", dflt_keys[i]);
		if (!drvdb_default_u32("mlx5_core", dflt_keys[i], &v)) {
			snprintf(fmt, sizeof(fmt), "  %s: %%llu\n", key);
			print_uint(PRINT_ANY, key, fmt, v);
		} else {
			snprintf(fmt, sizeof(fmt), "  %s: %%s\n", key);
			print_na(key, fmt);
		}
	}
	if (!rdma_netdev_ibdev(netdev, ibdev, sizeof(ibdev)))
		print_string(PRINT_ANY, "rdma-device", "  rdma-device: %s\n", ibdev);
	else
		print_na("rdma-device", "  rdma-device: %s\n");
	if (tx_cqe == 1)
		print_string(
			PRINT_FP, NULL, "  note: %s\n",
			"tx_cqe_moder on: the tx-usecs timer restarts at every completion; "
			"TSO flows can stall on the TSQ limit (48bfc39791b8 made EQE the default)");
	if (ret)
		print_string(PRINT_FP, NULL, "  note: private flags unreadable: %s\n",
			     strerror(-ret));
	close_json_object();
	return 0;
}
