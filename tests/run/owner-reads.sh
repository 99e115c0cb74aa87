#!/bin/sh
# Owner computes reading a vector by data: q[i] = A[i] . p writes at its
# own index and reads p at row i's columns.  Over ranks p is held where an
# earlier loop wrote it; the loop made it whole every invocation (CG's
# matvec: the whole vector to every rank) where the read slice says which
# elements the rank's rows read.  A banded part (a halo of a few
# elements), a scattered part (columns all over), and the columns changed
# half way, which the slice must see.  The vectors are the same bit for
# bit on every layout, and on 2 and 3 ranks the matvec sends a small part
# of what p whole would be.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cat >"$tmp/or.sap" <<'SAP'
struct Ent { long col; double v; }
struct Row { list<Ent> a; }
param long n = 100003;
param long far = 0;
dvector<Row> A(n);
dvector<double> p(n);
dvector<double> q(n);
dvector<double> x(n);
async for (long i = 0; i < n; i++) {
    for (long o = -2; o <= 2; o++) {
        long j = i + o * 3;
        if (j >= 0 && j < n) {
            Ent e;
            e.col = j;
            e.v = 1.0 / (1 + (i + j) % 7);
            push(A[i].a, e);
        }
    }
    if (far > 0 && i % far == 0) {
        Ent e;
        e.col = (i * 7919) % n;
        e.v = 0.5;
        push(A[i].a, e);
    }
    p[i] = double((i * 31) % 1000) / 1000.0;
}
for (int it = 0; it < 6; it++) {
    if (it == 3) {
        async for (long i = 0; i < n; i++) {
            A[i].a[0].col = (i * 104729 + 11) % n;
        }
    }
    async for (long i = 0; i < n; i++) {
        double s = 0;
        for (long k = 0; k < len(A[i].a); k++)
            s += A[i].a[k].v * p[A[i].a[k].col];
        q[i] = s;
    }
    async for (long i = 0; i < n; i++) {
        x[i] += 0.25 * q[i];
        p[i] = 0.5 * p[i] + 0.125 * q[i];
    }
}
save(x, "x.txt");
save(p, "p.txt");
SAP
cd "$tmp" || exit 1
"$SAPC" -O2 -o or or.sap || fail "sapc or.sap"
for f in 0 50; do
	for l in "1 1" "2 1" "3 1" "1 2" "2 2"; do
		set -- $l
		$MPIEXEC -n "$1" ./or --far=$f --threads="$2" --stats >"out.$1$2" 2>"err.$f.$1$2" </dev/null ||
			{ cat "err.$f.$1$2"; fail "far $f, $1 x $2: the run failed"; }
		for v in x p; do
			mv "$v.txt" "$v.$f.$1$2"
			cmp -s "$v.$f.11" "$v.$f.$1$2" || fail "far $f, $1 x $2: $v differs from one worker's"
		done
	done
done
# The matvec on 2 and 3 ranks, banded: p whole would be 0.8 MB an
# invocation, six of them; the halo is a few elements each (the columns
# changed at it == 3 are scattered, so some 0.3 MB then).  Sent by each
# rank: the 13th column.
for np in 2 3; do
	rows=$(grep "^ *[0-9]* [^ ]*or.sap:33 " "err.0.${np}1")
	test "$(echo "$rows" | grep -c 'owner computes')" = "$np" ||
		{ cat "err.0.${np}1"; fail "$np ranks: the matvec not owner computes on every rank"; }
	big=$(echo "$rows" | awk '$13 > 1.6 { print }')
	test -z "$big" || fail "$np ranks: the matvec sent more than 1.6 MB: $big"
done
exit 0
