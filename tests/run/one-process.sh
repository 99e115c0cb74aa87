#!/bin/sh
# A job of one process runs without MPI (comm-mpi.c, `solo`): started by
# `mpiexec -n 1` or without mpiexec, it must not start MPI (a pml that
# does not exist, which MPI_Init would fail on, does not matter to it),
# and gives what the same program gives with MPI started (SAP_MPI=1):
# loading, saving, a map's keys, async and sync loops, a checkpoint and
# the resumed run, with --stats.  SAP_MPI=1 does start MPI: the bad pml
# then fails the run.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cat >"$tmp/p.sap" <<'SAP'
struct Row {
    long k;
    double v;
}
param string data = "rows.txt";
param string out = "w.txt";
dvector<Row> R = load(data);
long n = len(R);
dmap<long, double> m;
dvector<double> w(64);
for (int e = 0; e < 3; e++) {
    async for (long i = 0; i < n; i++)
        w[R[i].k] += R[i].v * (e + 1);
    sync for (Row r : R) with (bsp, batch = 7)
        m[r.k % 5] += r.v;
}
double s = 0;
async for (long j = 0; j < 64; j++) reduce(+: s) s += w[j];
dvector<long> ks = keys(m);
print("%d keys, sum %.17g\n", len(ks), s);
for (long t = 0; t < len(ks); t++)
    print("%d %.17g\n", ks[t], m[ks[t]]);
save(w, out);
SAP
cd "$tmp" || exit 1
"$SAPC" -o p p.sap || fail "sapc p.sap"
awk 'BEGIN { for (i = 0; i < 500; i++) printf "%d %.6f\n", (i * 37) % 64, (i % 13) / 7.0 }' >rows.txt

run() { # NAME ENV... -- COMMAND...
	name=$1
	shift
	env "$@" --threads=2 --stats --checkpoint-dir="ck-$name" --checkpoint-every=1 --out="w-$name.txt" \
		>"$name.out" 2>"$name.err" </dev/null
}
run mpi SAP_MPI=1 $MPIEXEC -n 1 ./p || { cat mpi.err; fail "p with MPI started"; }
run solo OMPI_MCA_pml=nosuch $MPIEXEC -n 1 ./p || { cat solo.err; fail "p as one process under mpiexec"; }
run single OMPI_MCA_pml=nosuch ./p || { cat single.err; fail "p as one process without mpiexec"; }
grep -q '^5 keys, sum' mpi.out || { cat mpi.out; fail "p: no keys line"; }
for r in solo single; do
	# The report: the program's lines, without --stats' timings.
	grep -v ' s$\|time\|^ ' mpi.out >a
	grep -v ' s$\|time\|^ ' "$r.out" >b
	cmp -s a b || { diff a b; fail "$r: output differs from the run with MPI"; }
	cmp -s w-mpi.txt "w-$r.txt" || fail "$r: w.txt differs from the run with MPI"
done
# Resumed from the checkpoint of its last pass, without MPI.
OMPI_MCA_pml=nosuch $MPIEXEC -n 1 ./p --threads=2 --checkpoint-dir=ck-solo --resume --out=w-again.txt \
	>again.out 2>again.err </dev/null || { cat again.err; fail "p resumed as one process"; }
cmp -s w-mpi.txt w-again.txt || fail "resumed: w.txt differs"
# SAP_MPI=1 starts MPI, which the bad pml stops.
if SAP_MPI=1 OMPI_MCA_pml=nosuch $MPIEXEC -n 1 ./p >bad.out 2>&1 </dev/null; then
	fail "SAP_MPI=1 with a pml that does not exist ran: MPI was not started"
fi
exit 0
