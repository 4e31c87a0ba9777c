#!/bin/bash
# make bench: runs every tests/bench/*.sh (except this file); each prints side-by-side ratios.
# Benches never pass or fail on numbers; a bench that cannot run says why and is skipped.
# BENCH_FILTER=glob picks files.
set -u
cd "$(dirname "$0")/../.."
export ETHTUNE="${ETHTUNE:-$PWD/${O:-build}/ethtune}" ETHTUNE_ROOT="$PWD"
rc=0
for b in tests/bench/*.sh; do
	case ${b##*/} in run.sh | build_refs.sh) continue ;; esac
	case ${b##*/} in ${BENCH_FILTER:-*}) ;; *) continue ;; esac
	echo "# ---- bench ${b##*/}"
	bash "$b" || { echo "# bench ${b##*/} exited with status $?"; rc=1; }
done
exit $rc
