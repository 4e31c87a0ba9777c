#!/bin/bash
# Read-only: ethtune show eth0 agrees with ethtool and ip on every shared field.
. "$(dirname "$0")/../lib/ktap.sh"
E=${ETHTUNE:-build/ethtune}
if ! ip link show eth0 >/dev/null 2>&1 || ! command -v ethtool >/dev/null; then
	ktap_header "show eth0"; ktap_skip "show eth0" "no eth0 or no ethtool"; ktap_finish; exit 0
fi
exec python3 "$(dirname "$0")/show_eth0.py" "$E" eth0
