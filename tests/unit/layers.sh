#!/bin/bash
# Layering check: no source or header includes a header of a layer above its own (KTAP).
# san: no (a check of the sources or the build; the native run covers it)
# Layers, lowest first: util, out, nl, {state, knowledge, probe, trace, drivers/*}, analysis, cli.
# A layer may include its own headers and those of any layer below; the four middle layers are
# peers. Bare includes ("x.h") are allowed only for the BPF headers and the generated skeleton.
cd "$(dirname "$0")/../.." || exit 1
rank() {
	case $1 in
	util) echo 0 ;; out) echo 1 ;; nl) echo 2 ;;
	state | knowledge | probe | trace | drivers) echo 3 ;;
	analysis) echo 4 ;; cli) echo 5 ;; *) echo -1 ;;
	esac
}
layer_of() {	# layer of a path: ethtune/L/..., include/L/..., drivers/NAME/...
	case $1 in
	ethtune/*/* | include/*/*) p=${1#*/}; echo "${p%%/*}" ;;
	drivers/*) echo drivers ;;
	*) echo "" ;;
	esac
}
files=$(git ls-files 'ethtune/*.c' 'ethtune/*.h' 'include/*.h' 'drivers/*.c' 'drivers/*.h' |
	grep -v '/kmod/')
echo "KTAP version 1"
echo "1..3"
bad=0 stray=0 bare=0
for f in $files; do
	L=$(layer_of "$f")
	r=$(rank "$L")
	if [ "$r" -lt 0 ]; then
		echo "# $f: not in a layer folder"
		stray=$((stray + 1))
		continue
	fi
	while IFS= read -r inc; do
		case $inc in
		*/*)
			M=${inc%%/*}
			m=$(rank "$M")
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
