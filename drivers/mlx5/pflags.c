/* Private flags of a netdev through the ethtool ioctl (read-only; kept apart as a test seam). */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "probe/rdma_sysfs.h"

static int et_ioctl(int fd, const char *netdev, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, netdev, IFNAMSIZ - 1);
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

int mlx5_read_pflags(const char *netdev, struct mlx5_pflags *pf)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} sset = { .hdr = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << ETH_SS_PRIV_FLAGS } };
	struct ethtool_value val = { .cmd = ETHTOOL_GPFLAGS };
	struct ethtool_gstrings *gs = NULL;
	unsigned int i, n;
	int fd, ret;

	memset(pf, 0, sizeof(*pf));
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	ret = et_ioctl(fd, netdev, &sset);
	if (ret)
		goto out;
	n = sset.hdr.sset_mask ? sset.len : 0;
	if (n > MLX5_MAX_PFLAGS)
		n = MLX5_MAX_PFLAGS;
	gs = calloc(1, sizeof(*gs) + (size_t)n * ETH_GSTRING_LEN);
	if (!gs) {
		ret = -ENOMEM;
		goto out;
	}
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_PRIV_FLAGS;
	gs->len = n;
	ret = n ? et_ioctl(fd, netdev, gs) : 0;
	if (!ret && n)
		ret = et_ioctl(fd, netdev, &val);
	if (ret)
		goto out;
	for (i = 0; i < n && i < gs->len; i++) {
		memcpy(pf->name[i], gs->data + i * ETH_GSTRING_LEN, sizeof(pf->name[i]) - 1);
		pf->on[i] = val.data & (1u << i);
	}
	pf->n = i;
out:
	free(gs);
	close(fd);
	return ret;
}
