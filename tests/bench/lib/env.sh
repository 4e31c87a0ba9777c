# Settings every bench shares (sourced).
# The flows name their congestion control, not the host's default: bbr paced a single veth flow
# at ~22 Gbit/s where cubic ran ~48 on this lab's host, a limit that is not the CPU's.
CC=${BENCH_CC:-cubic}
# A stream's sender runs on one CPU and its receiver on another, for every tool and condition
# (BENCH_STREAM_CPUS="TX RX"; empty: the scheduler's choice), as ns/probe_iperf.sh does. Unplaced,
# a round's rate says where the scheduler put the two ends (one vCPU, or one each) more than what
# the bench compares: veth rounds spread 30-60 Gbit/s for one tool in one run.
STREAM_CPUS=${BENCH_STREAM_CPUS-0 1}
[ "$(nproc)" -ge 2 ] || STREAM_CPUS=""
TXPIN=() RXPIN=()
if [ -n "$STREAM_CPUS" ]; then
	read -r _tx _rx <<<"$STREAM_CPUS"
	TXPIN=(taskset -c "$_tx") RXPIN=(taskset -c "$_rx")
fi
PLACEMENT=${STREAM_CPUS:+"sender on CPU ${_tx:-}, receiver on CPU ${_rx:-}"}
PLACEMENT=${PLACEMENT:-"placed by the scheduler"}
