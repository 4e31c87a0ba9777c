/* txlat's engine in a build without BPF (WITH_BPF=0): every open fails naming what to install. */
#include <errno.h>
#include <stdio.h>

#include "trace/txlat.h"

int txlat_open(const char *dev, const struct txlat_opts *o, struct txlat **out, char *why,
	       size_t len)
{
	*out = NULL;
	snprintf(why, len, "this ethtune was built without BPF support; install libbpf-dev, clang "
			   "and bpftool and rebuild");
	return -EOPNOTSUPP;
}

void txlat_stop(struct txlat *t)
{
}

int txlat_reset(struct txlat *t)
{
	return -EOPNOTSUPP;
}

int txlat_read(struct txlat *t, struct txlat_result *r)
{
	return -EOPNOTSUPP;
}

int txlat_collect(struct txlat *t, struct txlat_result *r, char *why, size_t len)
{
	snprintf(why, len, "no BPF support in this build");
	return -EOPNOTSUPP;
}

void txlat_close(struct txlat *t)
{
}

const char *const *txlat_backend_names(void)
{
	static const char *const none[] = { NULL };

	return none;
}
