#!/bin/sh
# A stencil over ranks (sap_dds.near): a loop that reads u only at i + c
# for constants c fetches, on each rank, the few elements around its own
# iterations from their holders, not the whole vector (it made the other
# ranks send their whole parts at every invocation: a 1-D Jacobi smoother
# ran at 0.08x of its twin on 2 ranks, 16 MB a call for 4 M doubles).
# The smoothed vector is the same bit for bit on every layout, as is a sum
# over neighbours for the same number of workers; the stencil loop sends
# (next to) nothing on 2 and 3 ranks.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cat >"$tmp/st.sap" <<'SAP'
param long n = 200003;
param int iters = 5;
dvector<double> u(n);
async for (long i = 0; i < n; i++) u[i] = double((i * 7919) % 1000) / 1000.0;
dvector<double> v(n);
for (int it = 0; it < iters; it++) {
    async for (long i = 2; i < n - 3; i++)
        v[i] = (u[i - 2] + 2 * u[i - 1] + u[i] + u[i + 1] + u[i + 3]) / 6.0;
    async for (long i = 2; i < n - 3; i++)
        u[i] = v[i];
}
double s = 0;
async for (long i = 1; i < n - 1; i++) reduce(+: s) {
    s += u[i - 1] * u[i + 1];
}
print("%.17g\n", s);
save(u, "u.txt");
SAP
cd "$tmp" || exit 1
"$SAPC" -O2 -o st st.sap || fail "sapc st.sap"
for l in "1 1" "2 1" "3 1" "1 2" "1 3" "2 2"; do
	set -- $l
	$MPIEXEC -n "$1" ./st --threads="$2" --stats >"out.$1$2" 2>"err.$1$2" </dev/null ||
		{ cat "err.$1$2"; fail "$1 x $2: the run failed"; }
	mv u.txt "u.$1$2"
	cmp -s u.11 "u.$1$2" || fail "$1 x $2: u differs from one worker's"
done
cmp -s out.21 out.12 || fail "the sum on 2 x 1 differs from 1 x 2's"
cmp -s out.31 out.13 || fail "the sum on 3 x 1 differs from 1 x 3's"
# The stencil loop (loop 2) and the sum (loop 4) on 2 and 3 ranks, on
# every rank: chunks, and nothing but the neighbours sent (0.00 MB of
# 1.6; the 13th column).
for np in 2 3; do
	for l in 2:7 4:13; do
		rows=$(grep "^ *${l%:*} [^ ]*st.sap:${l#*:} " "err.${np}1")
		test "$(echo "$rows" | grep -c 'chunks')" = "$np" ||
			{ cat "err.${np}1"; fail "$np ranks: loop ${l%:*} not in chunks on every rank"; }
		sent=$(echo "$rows" | awk '{ print $13 }' | sort -u)
		test "$sent" = 0.00 || fail "$np ranks: loop ${l%:*} sent $sent MB: $rows"
	done
done
exit 0
