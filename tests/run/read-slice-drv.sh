#!/bin/sh
# A loop of a few iterations reading a large vector at keys from data and
# a driver variable (w[(idx[j] * 13 + p) % n]) has a read slice: on 2
# ranks each fetches the elements its iterations read, where it made the
# vector whole (4 MB over 5 passes) when any driver variable was in a
# key.  The runtime keeps the fetch list while p is unchanged, and makes
# it again when p changes: every layout prints the one rank's sums.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cat >rs.sap <<'SAP'
param int passes = 5;
dvector<double> w(200000);
dvector<long> idx(100);
async for (long i = 0; i < len(idx); i++) idx[i] = (i * 7919) % 200000;
for (int p = 0; p < passes; p++) {
    async for (long i = 0; i < len(w); i++)
        w[i] += i % 5 + p;
    double b = 0;
    async for (long j = 0; j < len(idx); j++) reduce(+: b) {
        b += w[(idx[j] * 13 + p) % len(w)] * (j % 3);
    }
    print("p %d b %.17g\n", p, b);
}
SAP
"$SAPC" --explain rs.sap >explain.out || fail "sapc --explain"
grep -q "read slice (on several ranks, each rank fetches the elements its iterations read; the slice runs again when p changes):" explain.out ||
	{ cat explain.out; fail "no read slice that runs again when p changes"; }
"$SAPC" -O2 -o rs rs.sap || fail "sapc rs.sap"
$MPIEXEC -n 1 ./rs >one.out </dev/null || fail "the run on 1 rank failed"
same_on_layouts rs one.out
# The loop's sent_MB on rank 0 of 2.
sent_mb rs rs.sap:9
# Made whole, w would be 4 MB; a short loop may run on every rank (a
# choice by its time, so the figure moves a little under load).
awk -v mb="$mb" 'BEGIN { exit !(mb < 1) }' ||
	fail "the loop sent $mb MB from rank 0 over 5 passes to read 500 elements"
exit 0
