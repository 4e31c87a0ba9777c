#!/bin/bash
# Driver knowledge in one place: each drivers/*/README.md holds, between the drvdb markers, exactly
# the block that ethtune/knowledge/drvdb.c makes (KTAP). --fix rewrites the blocks (make readmes).
# san: no (a check of the sources or the build; the native run covers it)
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/ktap.sh
GEN=${O:-build}/drvdb-readme
BEGIN='<!-- drvdb: generated'
END='<!-- drvdb: end -->'
fix=false
[ "${1:-}" = --fix ] && fix=true
ktap_header "drivers/*/README.md blocks against the driver knowledge"
if [ ! -x "$GEN" ]; then
	ktap_fail "$GEN is built (make unit)"
	ktap_finish
	exit
fi
# the block of a README: the lines from the begin marker through the end marker
block() { awk -v b="$BEGIN" -v e="$END" 'index($0, b) == 1 { on = 1 } on { print } $0 == e { on = 0 }' "$1"; }
while read -r drv readme; do
	want=$("$GEN" "$drv")
	if [ ! -f "$readme" ]; then
		ktap_fail "$drv: $readme exists"
		continue
	fi
	n=$(grep -c "^$BEGIN" "$readme")
	if $fix && [ "$n" -eq 1 ]; then
		# replace the block in place, keeping what stands around it
		awk -v b="$BEGIN" -v e="$END" -v f=<(printf '%s\n' "$want") '
			index($0, b) == 1 { while ((getline l < f) > 0) print l; skip = 1; next }
			skip && $0 == e { skip = 0; next }
			!skip { print }' "$readme" >"$readme.tmp" && mv "$readme.tmp" "$readme"
	fi
	if [ "$n" -ne 1 ]; then
		ktap_fail "$drv: $readme has one generated block (found $n)"
	elif [ "$(block "$readme")" = "$want" ]; then
		ktap_ok "$drv: $readme matches drvdb"
	else
		ktap_fail "$drv: $readme matches drvdb (make readmes regenerates it)"
		diff <(block "$readme") <(printf '%s\n' "$want") | head -20 | sed 's/^/# /'
	fi
done < <("$GEN" --list)
ktap_finish
