#!/bin/bash
# compare --html in headless Chromium: the page's charts are drawn and labelled, no console errors; the checker fails a page that is not.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/ktap.sh
ET=${ETHTUNE:-${O:-build}/ethtune}
T=$(mktemp -d /tmp/ethtune-html.XXXXXX)
trap 'rm -rf "$T"' EXIT
F=tests/fixtures/compare
CHECK="/usr/bin/python3 tests/lib/html_check.py"
ktap_header "HTML reports in headless Chromium"

"$ET" compare $F/base.json $F/regressed.json --html "$T/cmp.html" >"$T/cmp.txt" 2>&1
rc=$?
"$ET" compare $F/base.json $F/regressed.json >"$T/plain.txt" 2>&1
[ $rc = 1 ] && [ -s "$T/cmp.html" ] && diff -q "$T/cmp.txt" "$T/plain.txt" >/dev/null &&
	ktap_ok "compare --html: exit 1 on the regression, page written, text as without it" ||
	ktap_fail "compare --html: exit 1 on the regression, page written, text as without it (status $rc)"
bars=$(grep -c "class='data bar'" "$T/cmp.html")
reg=$(grep -c "fill='#c0392b'><title>new" "$T/cmp.html")
grep -q "sysctls.net.ipv4.tcp_rmem" "$T/cmp.html" && ! grep -qE "(src|href)=['\"]https?:" "$T/cmp.html" &&
	[ "$bars" = 20 ] && [ "$reg" = 2 ] &&
	ktap_ok "compare page: 20 bars (10 cells x 2), the 2 regressions red, the tcp_rmem diff, no fetches" ||
	ktap_fail "compare page: 20 bars, 2 red, tcp_rmem diff, no fetches (bars $bars, red $reg)"
out=$(timeout 120 $CHECK "$T/cmp.html" "$T/cmp.png" 1 2>&1) &&
	[ "$(stat -c %s "$T/cmp.png" 2>/dev/null || echo 0)" -gt 20000 ] &&
	ktap_ok "compare page in Chromium: $out" || ktap_fail "compare page in Chromium: $out"

# The checker itself: an empty chart, an unlabelled axis and a script error each fail it.
cat >"$T/bad.html" <<'HTML'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>bad</title></head><body>
<svg class="chart" width="300" height="200" aria-label="empty"><rect width="300" height="200" fill="#fff"/>
<text class="axis-label x" x="10" y="190">x</text><text class="axis-label y" x="10" y="20">y</text></svg>
<svg class="chart" width="300" height="200" aria-label="unlabelled"><rect class="data bar" width="30" height="20"/>
<text class="axis-label x" x="10" y="190">x</text></svg>
<script>undefined_function();</script></body></html>
HTML
out=$(timeout 120 $CHECK "$T/bad.html" "$T/bad.png" 1 2>&1) && rc=0 || rc=$?
[ $rc = 1 ] && echo "$out" | grep -q 'is empty' && echo "$out" | grep -q 'unlabelled axis' &&
	echo "$out" | grep -q 'console:' &&
	ktap_ok "checker fails an empty chart, an unlabelled axis and a console error" ||
	ktap_fail "checker fails an empty chart, an unlabelled axis and a console error (status $rc: $out)"

out=$("$ET" compare $F/base.json $F/regressed.json --html /nonexistent/r.html 2>&1) && rc=0 || rc=$?
[ $rc -ne 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && [ ! -e /nonexistent/r.html ] &&
	ktap_ok "an unwritable --html path: one line before any work ($out)" ||
	ktap_fail "an unwritable --html path: one line (status $rc: $out)"
ktap_finish
