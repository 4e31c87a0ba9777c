/* txlat's engine in a build without BPF (WITH_BPF=0): every open fails naming what to install. */
#include <errno.h>
#include <stdio.h>

#include "trace/txlat.h"

int txlat_open(const char *dev __attribute__((unused)),
	       const struct txlat_opts *o __attribute__((unused)), struct txlat **out, char *why,
	       size_t len)
{
	*out = NULL;
	snprintf(why, len,
		 "this ethtune was built without BPF support; install libbpf-dev, clang "
		 "and bpftool and rebuild");
	return -EOPNOTSUPP;
}

void txlat_stop(struct txlat *t __attribute__((unused)))
{
}

int txlat_reset(struct txlat *t __attribute__((unused)))
{
	return -EOPNOTSUPP;
}

void txlat_pause(struct txlat *t __attribute__((unused)), double grace_s __attribute__((unused)))
{
}

int txlat_resume(struct txlat *t __attribute__((unused)))
{
	return -EOPNOTSUPP;
}

int txlat_read(struct txlat *t __attribute__((unused)),
	       struct txlat_result *r __attribute__((unused)))
{
	return -EOPNOTSUPP;
}

int txlat_collect(struct txlat *t __attribute__((unused)),
		  struct txlat_result *r __attribute__((unused)), char *why, size_t len)
{
	snprintf(why, len, "no BPF support in this build");
	return -EOPNOTSUPP;
}

void txlat_close(struct txlat *t __attribute__((unused)))
{
}

const char *const *txlat_backend_names(void)
{
	static const char *const none[] = { NULL };

	return none;
}
