#!/bin/bash
# Layering check: no source or header includes a header of a layer above its own (KTAP).
# san: no (a check of the sources or the build; the native run covers it)
# The layers and their order: tests/unit/lib/layers.sh (a file in a subsystem's folder, such as
# ethtune/analysis/validate/, is of its top folder's layer). Bare includes ("x.h") are allowed
# only for the BPF headers and the generated skeleton. The files are those git knows and the new
# ones it does not ignore, as they are in the work tree. layers_sym.sh checks calls as well.
cd "$(dirname "$0")/../.." || exit 1
. tests/unit/lib/layers.sh
files=$(git ls-files --cached --others --exclude-standard 'ethtune/*.c' 'ethtune/*.h' \
	'include/*.h' 'drivers/*.c' 'drivers/*.h' | grep -v '/kmod/' | sort -u)
echo "KTAP version 1"
echo "1..3"
bad=0 stray=0 bare=0
for f in $files; do
	[ -f "$f" ] || continue # deleted in the work tree, not yet in git
	L=$(layer_of "$f")
	r=$(layer_rank "$L")
	if [ "$r" -lt 0 ]; then
		echo "# $f: not in a layer folder"
		stray=$((stray + 1))
		continue
	fi
	while IFS= read -r inc; do
		case $inc in
		*/*)
			M=${inc%%/*}
			m=$(layer_rank "$M")
			if [ "$m" -lt 0 ] || [ "$m" -gt "$r" ]; then
				echo "# $f ($L) includes $inc ($M)"
				bad=$((bad + 1))
			fi ;;
		txlat.h | txlat.skel.h | vmlinux.h | vmlinux_min.h) ;;
		*)
			echo "# $f includes \"$inc\" without its layer folder"
			bare=$((bare + 1)) ;;
		esac
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done
[ $stray -eq 0 ] && echo "ok 1 every source file sits in a layer folder" ||
	echo "not ok 1 every source file sits in a layer folder ($stray outside)"
[ $bare -eq 0 ] && echo "ok 2 every include names its layer" ||
	echo "not ok 2 every include names its layer ($bare bare)"
[ $bad -eq 0 ] && echo "ok 3 no include of a header from a layer above" ||
	echo "not ok 3 no include of a header from a layer above ($bad upward)"
