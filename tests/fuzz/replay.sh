#!/bin/sh
# Replay every input the fuzzer (make fuzz) found crashing or hanging
# sapc, kept in tests/fuzz/regress/: each must end, within a time limit,
# with status 0 or with status 1 and an error naming a place, through
# every pass (--explain, then -S for C emission).
# Environment (from Makefile.am): SAPC, top_srcdir.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
make_tmp
limit=60
status=0
n=0
for f in "$top_srcdir"/tests/fuzz/regress/*.sap; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	name=$(basename "$f")
	for mode in --explain -S; do
		rm -f "$tmp/out.c"
		if [ "$mode" = -S ]; then
			timeout $limit "$SAPC" -S -o "$tmp/out.c" "$f" >"$tmp/log" 2>&1
		else
			timeout $limit "$SAPC" --explain "$f" >"$tmp/log" 2>&1
		fi
		rc=$?
		case $rc in
		0) ;;
		1)
			# --explain exits 1 for a rejected loop, with its report.
			if [ "$mode" = -S ] && ! grep -q "^[^:]*\.sap:[0-9]*:[0-9]*: error: \|^sapc: error: " "$tmp/log"; then
				echo "FAIL: $name: sapc $mode exited with 1 without an error message"
				head -5 "$tmp/log"
				status=1
			fi
			;;
		124)
			echo "FAIL: $name: sapc $mode did not finish within ${limit}s"
			status=1
			;;
		*)
			echo "FAIL: $name: sapc $mode exited with status $rc"
			tail -5 "$tmp/log"
			status=1
			;;
		esac
	done
done
echo "replayed $n inputs"
exit $status
