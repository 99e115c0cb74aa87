#!/bin/sh
# --dump-order records each sync for invocation's workers, which its
# result depends on (it has no order to replay), and --run-order says when
# the replay's workers differ: before, a replay on one rank recomputed the
# sync loops with one worker and went on from other values, silently.
#  - recorded on 2 ranks, replayed on 2 ranks: no warning, same result;
#  - replayed on 1 rank: a warning naming the recorded layout;
#  - recon = off (dense: the result depends on the workers only),
#    replayed on 1 rank of 2 threads: no warning, same result;
#  - hybrid, replayed on its own layout: a warning that it is timed;
#  - ssp(2) recorded on 1 rank of 2 threads (bulk synchronous there),
#    replayed on 2 ranks (timed): a warning, though the workers are as
#    many; replayed on 1 x 2: none, and the same result;
#  - a file without the sync line: an error naming the line expected.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

prog() {
	cat <<SAP
param int n = 400;
param int d = 8;
dvector<double> X(n);
dvector<double> w(d);
for (long i = 0; i < n; i++)
    X[i] = (i * 37 % 101) / 101.0;
for (int it = 0; it < 3; it++) {
    sync for (double x : X) with ($1, batch = 10$2) {
        int k = int(x * 1000) % d;
        w[k] += 0.01 * (x - w[k]);
    }
    async for (long j = 0; j < d; j++) {
        w[j] = w[j] * 0.5 + 0.25;
    }
}
double s = 0;
for (long j = 0; j < d; j++)
    s += w[j];
print("%.17g\n", s);
SAP
}
cd "$tmp" || exit 1
prog bsp "" >sparse.sap
prog bsp ", recon = off" >dense.sap
prog hybrid "" >hybrid.sap
prog "ssp(2)" "" >ssp.sap
for p in sparse dense hybrid ssp; do
	"$SAPC" -o "$p" "$p.sap" || fail "sapc $p.sap"
done

$MPIEXEC -n 2 ./sparse --threads=1 --dump-order=o.txt >rec.out || fail "sparse on 2 x 1"
grep -q '^sync 1 invocation 3 ranks 2 threads 1$' o.txt || { cat o.txt; fail "no sync line in the dump"; }
$MPIEXEC -n 2 ./sparse --threads=1 --run-order=o.txt >rep.out 2>rep.err || fail "replay on 2 x 1"
cmp -s rec.out rep.out || fail "the replay on 2 x 1 is not the recorded run: $(cat rec.out rep.out)"
# Only the replay's own warning counts: a slow machine (a sanitized
# build) also gets the timed one about small mini-batches.
grep -q -- '--run-order' rep.err && { cat rep.err; fail "a warning replaying on the recorded layout"; }
$MPIEXEC -n 1 ./sparse --run-order=o.txt >rep.out 2>rep.err || fail "replay on 1 x 1"
grep -q "sparse.sap:8:5: warning: --run-order: this sync for ran on 2 workers (2 ranks of 1 thread) in the recorded run and on 1 (1 of 1) here: its result, and what follows from it, can differ from the recorded run's; replay under mpiexec -n 2 with --threads=1" rep.err ||
	{ cat rep.err; fail "no warning replaying 2 x 1 on 1 x 1"; }
test "$(grep -c warning rep.err)" = 1 || { cat rep.err; fail "more than one warning for one loop"; }
# On the sparse path one rank of 2 threads sums as 2 ranks of 1 do.
$MPIEXEC -n 1 ./sparse --threads=2 --run-order=o.txt >rep.out 2>rep.err || fail "replay on 1 x 2"
cmp -s rec.out rep.out || fail "the sparse replay on 1 x 2 is not the run on 2 x 1: $(cat rec.out rep.out)"
grep -q -- '--run-order' rep.err && { cat rep.err; fail "a warning replaying a sparse 2 x 1 loop on 1 x 2"; }

$MPIEXEC -n 2 ./dense --threads=1 --dump-order=d.txt >rec.out || fail "dense on 2 x 1"
$MPIEXEC -n 1 ./dense --threads=2 --run-order=d.txt >rep.out 2>rep.err || fail "dense replay on 1 x 2"
cmp -s rec.out rep.out || fail "the dense replay on 1 x 2 is not the run on 2 x 1: $(cat rec.out rep.out)"
grep -q -- '--run-order' rep.err &&
	{ cat rep.err; fail "a warning replaying a dense loop on as many workers"; }

$MPIEXEC -n 1 ./hybrid --threads=2 --dump-order=h.txt >/dev/null || fail "hybrid on 1 x 2"
$MPIEXEC -n 1 ./hybrid --threads=2 --run-order=h.txt >/dev/null 2>rep.err || fail "hybrid replay"
grep -q "hybrid.sap:8:5: warning: --run-order: this sync for is not under bsp, and its result in the recorded run (1 rank of 2 threads) depended on the timing of its workers: no replay computes it for sure, and what follows from it can differ" rep.err ||
	{ cat rep.err; fail "no warning replaying a hybrid loop"; }

$MPIEXEC -n 1 ./ssp --threads=2 --dump-order=s.txt >rec.out || fail "ssp on 1 x 2"
$MPIEXEC -n 1 ./ssp --threads=2 --run-order=s.txt >rep.out 2>rep.err || fail "ssp replay on 1 x 2"
cmp -s rec.out rep.out || fail "the ssp replay on 1 x 2 is not the recorded run: $(cat rec.out rep.out)"
grep -q -- '--run-order' rep.err && { cat rep.err; fail "a warning replaying ssp on one rank"; }
$MPIEXEC -n 2 ./ssp --threads=1 --run-order=s.txt >rep.out 2>rep.err || fail "ssp replay on 2 x 1"
grep -q "ssp.sap:8:5: warning: --run-order: this sync for ran on 2 workers (1 rank of 2 threads) in the recorded run and on 2 (2 of 1) here, where it is not under bsp and depends on their timing: its result, and what follows from it, can differ from the recorded run's; replay under mpiexec -n 1 with --threads=2" rep.err ||
	{ cat rep.err; fail "no warning replaying ssp from 1 x 2 on 2 x 1"; }

grep -v '^sync' o.txt >nosync.txt
$MPIEXEC -n 1 ./sparse --run-order=nosync.txt >/dev/null 2>rep.err && fail "a file without its sync lines was taken"
grep -q "error: --run-order=nosync.txt:4: expected \"sync 1 invocation 1 ranks R threads T\", got \"loop 2 invocation 1 count 8\"" rep.err ||
	{ cat rep.err; fail "the message for a missing sync line"; }
exit 0
