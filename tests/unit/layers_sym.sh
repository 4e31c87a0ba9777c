#!/bin/bash
# Layering check on the built objects: no object uses a symbol defined only in a layer above (KTAP).
# san: no (a check of the sources or the build; the native run covers it)
# layers.sh reads includes; a call through a declaration written by hand, or through a lower
# layer's header declaring what a higher layer defines, passes it. This reads what each object
# under $O/obj (O: build by default) defines and what it leaves undefined (nm), and takes an
# object's layer from its source's top folder (lib/layers.sh; peers may use each other). Only
# objects whose source is in the tree count: one left behind by a moved file does not.
cd "$(dirname "$0")/../.." || exit 1
. tests/unit/lib/layers.sh
O=${O:-build}
echo "KTAP version 1"
echo "1..2"
objs=()
while IFS= read -r o; do
	src=${o#"$O"/obj/}
	[ -f "${src%.o}.c" ] && objs+=("$o")
done < <(find "$O/obj/ethtune" "$O/obj/drivers" -name '*.o' 2>/dev/null | sort)
if [ ${#objs[@]} -eq 0 ]; then
	echo "ok 1 the tree's objects are built # SKIP no objects under $O/obj (make first)"
	echo "ok 2 no object uses a symbol defined only in a layer above # SKIP no objects"
	exit 0
fi
echo "ok 1 the tree's objects are built (${#objs[@]} under $O/obj)"
# awk reads "L OBJ RANK LAYER" for each object, then nm -A's "OBJ:[VALUE] TYPE NAME" lines of its
# defined globals (D) and of its undefined references (U)
bad=$( {
	for o in "${objs[@]}"; do
		L=$(layer_of "${o#"$O"/obj/}")
		echo "L $o $(layer_rank "$L") $L"
	done
	nm -A -g --defined-only "${objs[@]}" | sed 's/^/D /'
	nm -A -u "${objs[@]}" | sed 's/^/U /'
} | awk '
	$1 == "L" { rank[$2] = $3; layer[$2] = $4; next }
	{ obj = $2; sub(/:.*/, "", obj); name = $NF }
	$1 == "D" {
		# the lowest layer defining it (txlat.c and txlat_none.c are alternatives)
		if (!(name in low) || rank[obj] < low[name]) {
			low[name] = rank[obj]
			lowlayer[name] = layer[obj]
		}
		defs[name] = defs[name] " " obj
		next
	}
	{ uses[++n] = obj; used[n] = name }
	END {
		for (i = 1; i <= n; i++) {
			o = uses[i]; s = used[i]
			if ((s in low) && low[s] > rank[o])
				printf "# %s (%s) uses %s, defined only in %s:%s\n", o, layer[o], s,
					lowlayer[s], defs[s]
		}
	}' | sed "s|$O/obj/||g" | sort)
if [ -z "$bad" ]; then
	echo "ok 2 no object uses a symbol defined only in a layer above"
else
	printf '%s\n' "$bad"
	n=$(printf '%s\n' "$bad" | wc -l)
	echo "not ok 2 no object uses a symbol defined only in a layer above ($n upward)"
fi
