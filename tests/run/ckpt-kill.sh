#!/bin/sh
# A rank killed with SIGKILL at a random moment, as SCR and FTI are
# tested: often in the middle of a checkpoint, which this program takes
# after every parallel loop.  The job is then resumed (again, if the kill
# came before the first checkpoint), and it must end with the model an
# uninterrupted run saves, bit for bit, and print the end of its output.
#
# TRIALS (default 4) kills; `TRIALS=200 sh tests/run/ckpt-kill.sh` with
# SAPC, MPIEXEC and top_srcdir set is the campaign of sap-run(1).  SEED
# (default 1) picks the ranks and the moments.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99
trials=${TRIALS:-4}
seed=${SEED:-1}

cat >p.sap <<'SAP'
param int passes = 30;
param string out = "w.txt";
struct Row { int n; list<double> v; }
dvector<double> w(200000);
dvector<Row> rows(500);
dmap<long, double> big;
double s = 0;
for (int p = 0; p < passes; p++) {
    async for (long i = 0; i < len(w); i++)
        w[i] += rand() * (i % 7);
    async for (long i = 0; i < len(rows); i++) {
        rows[i].n++;
        push(rows[i].v, w[i * 7 + p]);
    }
    s = 0;
    async for (long i = 0; i < len(w); i++) reduce(+: s) {
        s += w[i];
    }
    big[p] = s;
    print("pass %d sum %.17g\n", p, s);
}
double t = 0;
async for (long i = 0; i < len(rows); i++) reduce(+: t) {
    for (long k = 0; k < len(rows[i].v); k++)
        t += rows[i].v[k] * rows[i].n;
}
print("rows %.17g\n", t);
save(w, out);
SAP
"$SAPC" -O2 -o p p.sap || fail "sapc p.sap"
run="$MPIEXEC -n 2"
ck="--checkpoint-dir=ck --checkpoint-every=1"
start=$(date +%s%N)
$run "$tmp/p" --out=full.txt >full.out 2>full.err </dev/null || { cat full.err; fail "the run failed"; }
ms=$((($(date +%s%N) - start) / 1000000))

ok=0 killed=0 torn=0 torn_dirs=0 hung=0
i=1
while [ "$i" -le "$trials" ]; do
	# A rank (0 or 1) and a moment in the first 90% of the run.
	set -- $(awk -v s="$seed" -v i="$i" -v ms="$ms" \
		'BEGIN { srand(s * 1000 + i); printf "%d %.3f\n", rand() < 0.5, rand() * ms * 0.9 / 1000 }')
	rank=$1 at=$2
	rm -rf ck w.txt
	$run "$tmp/p" $ck >p1.out 2>p1.err </dev/null &
	job=$!
	sleep "$at"
	# The ranks are the job's processes, in rank order: by the full path,
	# not another test's ./p running beside this one.
	pids=$(pgrep -f "^$tmp/p --checkpoint-dir=ck" | sort -n)
	victim=$(echo "$pids" | sed -n "$((rank + 1))p")
	if [ -n "$victim" ]; then
		kill -KILL "$victim" 2>/dev/null
	fi
	# mpiexec can hang when a rank dies inside MPI's start-up (Open MPI
	# 4.1's PMIx, "UNREACHABLE"): after 30 s it goes too.
	t=0
	while kill -0 "$job" 2>/dev/null && [ "$t" -lt 300 ]; do
		sleep 0.1
		t=$((t + 1))
	done
	kill -0 "$job" 2>/dev/null && { kill -KILL "$job"; hung=$((hung + 1)); }
	wait "$job" || killed=$((killed + 1))
	# Left behind by the kill: checkpoints without their COMPLETE (the
	# one being written, and the one before while its COMPLETE waits for
	# rank 0's next writer).
	n=0
	for d in ck/ckpt-*; do
		test -d "$d" && ! test -e "$d/COMPLETE" && n=$((n + 1))
	done
	torn_dirs=$((torn_dirs + n))
	[ "$n" -gt 0 ] && torn=$((torn + 1))
	tries=0
	until $run "$tmp/p" $ck --resume >p2.out 2>p2.err </dev/null; do
		tries=$((tries + 1))
		[ "$tries" -lt 3 ] || { cat p2.err; fail "trial $i: --resume failed"; }
	done
	cmp -s full.txt w.txt || fail "trial $i (rank $rank killed at ${at}s): the model differs"
	tail -n "$(wc -l <p2.out)" full.out | cmp -s - p2.out ||
		fail "trial $i (rank $rank killed at ${at}s): the resumed output is not the end of the full run's"
	ok=$((ok + 1))
	i=$((i + 1))
done
echo "$ok of $trials trials ended with the uninterrupted run's model; $killed runs killed," \
	"$torn of them leaving incomplete checkpoints ($torn_dirs in all); mpiexec hung $hung" \
	"times and was killed"
exit 0
