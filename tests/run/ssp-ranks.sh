#!/bin/sh
# sync for with ssp(s) over 2 ranks, 30 clocks each (batch = 1), with
# rank 1 held back by a gate in C: before it finishes clock c it waits
# until rank 0 has finished clock c + g.  What the gate forces, and the
# bounds ssp(s) promises, hold whatever the machine's load; both are
# checked on the counters --stats reports (the clocks by how many the
# rank was ahead of the slowest on reaching them, the waits, the largest
# staleness):
#  - ssp(2), g = 2: rank 0 reaches clocks 0, 1, 2 ahead by 0, 1, 2 (rank 1
#    cannot finish clock 0 before rank 0 finished clock 2), so its
#    staleness is exactly 2; on every rank no clock is reached more than
#    3 ahead, the rank waits exactly at those reached 3 ahead, and no
#    rank runs more than 2 ahead;
#  - ssp(100), g = 29 (rank 1 finishes nothing until rank 0 is done):
#    rank 0 reaches clock c ahead by c and never waits; staleness 29;
#  - ssp(0) is bsp: the same output as the bsp loop, and no waits;
#  - the vectors end the same on every rank (min = max over the ranks),
#    and least squares by SGD under ssp(1) converges on 2 and 3 ranks;
#  - counts in three written vectors (merge = sum, int, double and a
#    struct) come out exact on 1, 2 and 3 ranks of 1 and 2 threads: a
#    rank's change to one vector used to be taken after its first
#    vector's went out, which took in the other ranks' changes to all of
#    them, so those were counted twice.
# Whether rank 0 waits at a clock after the third depends on when rank
# 1's change arrives, so how often it waits is not checked.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/gate.c" <<'C'
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Called once a clock (batch = 1, one thread), in the directory of the
 * run: rank 0 leaves a file for each clock it finishes, rank 1 waits for
 * the one of clock c + g before it finishes clock c. */
int gate(int g)
{
	static int clock;
	int me, c = clock++;
	char name[32];
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	if (me == 0) {
		snprintf(name, sizeof name, "clock.%d", c);
		int fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0) {
			perror(name);
			exit(2);
		}
		close(fd);
	} else if (g >= 0 && c + g < 30) {
		snprintf(name, sizeof name, "clock.%d", c + g);
		struct timespec ms = {0, 1000000};
		while (access(name, F_OK) != 0) {
			if (errno != ENOENT) {
				perror(name);
				exit(2);
			}
			nanosleep(&ms, NULL);
		}
	}
	return 0;
}
C

cat >"$tmp/slow.sap" <<'SAP'
extern int gate(int g);
struct Item {
    long work;
}
param int s = 2;
param int g = -1;
param long n = 60;
dvector<Item> A(n);
for (long i = n / 2; i < n; i++)
    A[i].work = 3000000;
dvector<double> W(2);
sync for (Item it : A) with (ssp(s), batch = 1) {
    W[0] += 1 + it.work * 1e-9;
    W[1] += gate(g);
}
// Every rank's W[0], through a loop whose iterations spread over them.
double lo = 1e30;
double hi = -1e30;
async for (long i = 0; i < 64; i++) reduce(min: lo) reduce(max: hi) {
    lo = min(lo, W[0]);
    hi = max(hi, W[0]);
}
print("W %.6f %.4f agree %d\n", W[0], W[1], lo == hi);
SAP
sed 's/with (ssp(s), /with (bsp, /' "$tmp/slow.sap" >"$tmp/slowbsp.sap"

sed 's/@MODEL@/ssp(1)/' "$top_srcdir/tests/run/lsq.sap.in" >"$tmp/lsq.sap"

for p in slow slowbsp; do
	"$SAPC" -O2 -o "$tmp/$p" "$tmp/$p.sap" "$tmp/gate.c" || fail "sapc $p.sap"
done
"$SAPC" -O2 -o "$tmp/lsq" "$tmp/lsq.sap" || fail "sapc lsq.sap"

# The sync table's row for rank R: "waits staleness".
row() {
	awk -v r="$2" '/^sap stats: parallel loops on rank/ { rank = $7 }
		$2 ~ /slow\.sap:/ && $4 ~ /^(ssp|bsp)/ && rank == r { print $10, $12 }' "$1"
}
# Rank R's clocks by lead: "lead:count ...".
leads() {
	awk -v r="$2" '/^sap stats: parallel loops on rank/ { rank = $7 }
		/^Loop 1: clocks by how many/ && rank == r {
			sub(/.*reaching them: /, ""); gsub(/ \(waited\)/, ""); gsub(/: /, ":"); print }' "$1"
}

# Each run in a directory of its own, where the gate leaves its files;
# the statistics (stderr) apart from the result (stdout).
run() {
	out=$1
	shift
	rm -rf "$out.d" && mkdir "$out.d" || exit 99
	(cd "$out.d" && $MPIEXEC -n 2 "$@" --threads=1 --stats >"$out" 2>"$out.stats") ||
		{ cat "$out" "$out.stats"; fail "$*"; }
}

run "$tmp/s2" "$tmp/slow" --s=2 --g=2
grep -qx 'W 30.045000 0.0000 agree 1' "$tmp/s2" || { cat "$tmp/s2"; fail "ssp(2): wrong result"; }
# ssp(s) on rank R: "ok" if its clocks were reached at most s + 1 ahead
# (30 in all), it waited exactly at those reached s + 1 ahead, and its
# staleness is at most s; then the counts by lead.
bounded() {
	set -- "$1" "$2" "$3" "$(row "$1" "$2")" "$(leads "$1" "$2")"
	echo "$5" | tr ' ' '\n' | awk -F: -v s="$3" -v row="$4" '
		BEGIN { split(row, r, " ") }
		{ n += $2; c[$1] = $2; if ($1 > s + 1) bad = 1 }
		END {
			ok = n == 30 && !bad && r[1] == c[s + 1] + 0 && r[2] <= s
			printf "%s", ok ? "ok" : "bad"
			for (l = 0; l <= s + 1; l++)
				printf " %d", c[l]
			print ""
		}'
}
b0=$(bounded "$tmp/s2.stats" 0 2)
b1=$(bounded "$tmp/s2.stats" 1 2)
echo "ssp(2) by lead, rank 0: $b0; rank 1: $b1"
case $b0 in "ok 1 1 "*) ;; *) cat "$tmp/s2.stats"; fail "ssp(2) on rank 0: $b0";; esac
case $b1 in "ok "*) ;; *) cat "$tmp/s2.stats"; fail "ssp(2) on rank 1: $b1";; esac
test "$(row "$tmp/s2.stats" 0 | cut -d' ' -f2)" = 2 ||
	{ cat "$tmp/s2.stats"; fail "ssp(2): rank 0's staleness should be 2"; }

run "$tmp/s100" "$tmp/slow" --s=100 --g=29
grep -qx 'W 30.045000 0.0000 agree 1' "$tmp/s100" || { cat "$tmp/s100"; fail "ssp(100): wrong result"; }
test "$(row "$tmp/s100.stats" 0)" = "0 29" &&
	test "$(leads "$tmp/s100.stats" 0)" = "$(seq -s ' ' -f '%g:1' 0 29)" ||
	{ cat "$tmp/s100.stats"; fail "ssp(100): rank 0 should run up to 29 clocks ahead, never waiting"; }
test "$(row "$tmp/s100.stats" 1 | cut -d' ' -f1)" = 0 ||
	{ cat "$tmp/s100.stats"; fail "ssp(100): rank 1 waited"; }

run "$tmp/s0" "$tmp/slow" --s=0
run "$tmp/bsp" "$tmp/slowbsp"
cmp "$tmp/s0" "$tmp/bsp" || fail "ssp(0) differs from bsp"
grep -qx 'W 30.045000 0.0000 agree 1' "$tmp/s0" || { cat "$tmp/s0"; fail "ssp(0): wrong result"; }
test "$(row "$tmp/s0.stats" 0)" = "0 0" || { cat "$tmp/s0.stats"; fail "ssp(0) waited like ssp"; }

for np in 2 3; do
	$MPIEXEC -n "$np" "$tmp/lsq" --threads=1 >"$tmp/lsq.$np" 2>"$tmp/lsq.$np.err" ||
		{ cat "$tmp/lsq.$np" "$tmp/lsq.$np.err"; fail "lsq on $np ranks"; }
	awk '/^epoch/ { mse[$2] = $4 } END { exit !(mse[2] < mse[0] && mse[2] < 0.01) }' \
		"$tmp/lsq.$np" || { cat "$tmp/lsq.$np"; fail "lsq under ssp(1) on $np ranks: no convergence"; }
done
cat >"$tmp/cnt.sap" <<'SAP'
struct E {
    int c;
    double x;
}
param int n = 1003;
dvector<E> D(n);
async for (long i = 0; i < n; i++) {
    D[i].c = int((i * 37) % 11);
    D[i].x = (i % 5) * 0.5;
}
dvector<long> cnt(11);
dvector<double> sx(11);
dvector<E> se(11);
sync for (E e : D) with (ssp(2), batch = 7, merge(cnt) = sum, merge(sx) = sum, merge(se) = sum) {
    cnt[e.c] += 1;
    sx[e.c] += e.x;
    se[e.c].c += 1;
    se[e.c].x += e.x;
}
long t = 0;
double tx = 0;
long t2 = 0;
double tx2 = 0;
for (int k = 0; k < 11; k++) {
    t += cnt[k];
    tx += sx[k];
    t2 += se[k].c;
    tx2 += se[k].x;
}
print("%d %.17g %d %.17g\n", t, tx, t2, tx2);
SAP
"$SAPC" -O2 -o "$tmp/cnt" "$tmp/cnt.sap" || fail "sapc cnt.sap"
for np in 1 2 3; do
	for t in 1 2; do
		$MPIEXEC -n "$np" "$tmp/cnt" --threads=$t >"$tmp/cnt.out" 2>"$tmp/cnt.err" ||
			{ cat "$tmp/cnt.err"; fail "cnt on $np x $t"; }
		grep -qx '1003 1001.5 1003 1001.5' "$tmp/cnt.out" ||
			{ cat "$tmp/cnt.out"; fail "ssp counts on $np x $t: expected 1003 1001.5 1003 1001.5"; }
	done
done
exit 0
