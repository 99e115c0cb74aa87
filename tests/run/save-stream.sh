#!/bin/sh
# A save to something that is not a regular file (a FIFO here; the same
# holds for /dev/null and /dev/stdout) writes into it in place: the
# atomic save's rename would have replaced it with a regular file, which
# for /dev/null as root breaks every program on the machine.  On 1, 2
# and 3 ranks the reader gets every element in order, the FIFO is still a
# FIFO, and no temporary is left beside it.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/s.sap" <<'SAP'
param long n = 10;
param string out = "out.txt";
dvector<long> w(n);
async for (long i = 0; i < n; i++)
    w[i] = i * i;
save(w, out);
print("saved\n");
SAP
"$SAPC" -O2 -o "$tmp/s" "$tmp/s.sap" || fail "sapc s.sap"

awk 'BEGIN { for (i = 0; i < 10; i++) print i * i }' >"$tmp/want"
for np in 1 2 3; do
	rm -f "$tmp/fifo" "$tmp/got"
	mkfifo "$tmp/fifo" || fail "mkfifo"
	timeout 120 cat "$tmp/fifo" >"$tmp/got" &
	reader=$!
	timeout 120 $MPIEXEC -n $np "$tmp/s" --out="$tmp/fifo" >"$tmp/out" 2>"$tmp/err" ||
		{ cat "$tmp/err"; kill $reader 2>/dev/null; fail "$np ranks: non-zero exit status"; }
	wait $reader || fail "$np ranks: the reader failed"
	test -p "$tmp/fifo" || fail "$np ranks: the FIFO was replaced"
	cmp -s "$tmp/got" "$tmp/want" || { cat "$tmp/got"; fail "$np ranks: the reader got other lines"; }
	test "$(cat "$tmp/out")" = saved || fail "$np ranks: printed '$(cat "$tmp/out")'"
	test "$(find "$tmp" -name '.fifo*' | wc -l)" = 0 || fail "$np ranks: a temporary is left"
done
exit 0
