#!/bin/bash
# Runs once in the guest chroot at boot: stable device names (ee0/ee1, vn0/vn1) and rxe0 on ee0.
for d in /sys/class/net/*; do
	n=${d##*/}
	case $(cat "$d/address" 2>/dev/null) in
	52:54:00:1a:00:0?) new=ee$(cut -c17 "$d/address") ;;
	52:54:00:1b:00:0?) new=vn$(cut -c17 "$d/address") ;;
	*) continue ;;
	esac
	ip link set "$n" name "$new"
done
ip link set lo up
ip link set ee0 up 2>/dev/null
rdma link add rxe0 type rxe netdev ee0 2>/dev/null || echo "lab-setup: rxe0 not created"
exit 0
