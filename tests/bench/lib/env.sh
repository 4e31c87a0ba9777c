# Settings every bench shares (sourced).
# The flows name their congestion control, not the host's default: bbr paced a single veth flow
# at ~22 Gbit/s where cubic ran ~48 on this lab's host, a limit that is not the CPU's.
CC=${BENCH_CC:-cubic}
