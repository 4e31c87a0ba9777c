/* `ethtune txlat` in a build without BPF (WITH_BPF=0): one line naming what to install. */
#include "cli/commands.h"
#include "util/ethtune.h"

int cmd_txlat(int argc, char **argv)
{
	et_err("txlat: this ethtune was built without BPF support; install libbpf-dev, clang and "
	       "bpftool and rebuild");
	return EXIT_FAIL;
}
