#!/bin/sh
# --dump-order's file starts with what the run was of: the program's
# hash, the seed and every param.  A replay of it with other ones ran a
# valid order of another computation, silently (another --data of as
# many lines, another --seed for the driver's draws); now it is warned:
#  - the same run replayed: no warning, the same output;
#  - another seed, another param, an edited source: a warning naming
#    each, once, and the replay still runs; not a param that is only
#    the file name of a save();
#  - a file without those lines (by hand, or an older build's) replays,
#    and so does either from a pipe on one rank.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 1

cat >p.sap <<'SAP'
param int n = 60;
param double step = 0.5;
param string tag = "a b";
param string out = "x.txt";
dvector<double> x(n);
dvector<long> at(n);
for (int pass = 0; pass < 2; pass++) {
    long k = rand_int(n);
    async for (long i = 0; i < n; i++) {
        long j = (i * 7 + k) % n;
        x[j] = x[j] * step + i;
        at[j] = i;
    }
}
double s = 0;
for (long i = 0; i < n; i++)
    s += x[i] * (i + 1);
print("%.17g\n", s);
save(x, out);
SAP
sed 's/^print(/print("edited\\n");\nprint(/' p.sap >q.sap
"$SAPC" -o p p.sap || fail "sapc p.sap"
"$SAPC" -o q q.sap || fail "sapc q.sap"

$MPIEXEC -n 2 ./p --threads=1 --dump-order=o.txt >rec.out || fail "the recorded run"
cp x.txt rec.x || fail "no x.txt"
head -1 o.txt | grep -q '^program [0-9a-f]\{16\} seed 1$' || { head -3 o.txt; fail "no program line"; }
sed -n 2,4p o.txt >params.txt
printf 'param n 60\nparam step 0.5\nparam tag a b\n' | cmp -s - params.txt ||
	{ cat params.txt; fail "the param lines"; }
./p --run-order=o.txt >rep.out 2>rep.err || { cat rep.err; fail "the replay"; }
cmp -s rec.out rep.out || fail "the replay printed $(cat rep.out), the run $(cat rec.out)"
test -s rep.err && { cat rep.err; fail "the same run's replay warned"; }

./p --run-order=o.txt --seed=5 --step=0.25 >/dev/null 2>rep.err || { cat rep.err; fail "another seed"; }
grep -qxF "p: warning: --run-order=o.txt: the run it records had --seed=1 (now 5), --step=0.5 (now 0.25): this replay runs its order on what this program, params and seed make, which can differ" rep.err ||
	{ cat rep.err; fail "no warning for another seed and param"; }
test "$(wc -l <rep.err)" = 1 || { cat rep.err; fail "more than one line"; }

# A param that is only ever the file name of a save() changes nothing
# the replay computes: a replay into another file is not warned.
./p --run-order=o.txt --out=y.txt >rep.out 2>rep.err || { cat rep.err; fail "another --out"; }
cmp -s rec.out rep.out || fail "the replay into y.txt printed $(cat rep.out)"
cmp -s rec.x y.txt || fail "the replay saved another x"
test -s rep.err && { cat rep.err; fail "a replay into another file warned"; }

./q --run-order=o.txt >/dev/null 2>rep.err || { cat rep.err; fail "the edited program"; }
grep -qxF "q: warning: --run-order=o.txt: the run it records was of another source of the program (or another sapc): this replay runs its order on what this program, params and seed make, which can differ" rep.err ||
	{ cat rep.err; fail "no warning for another source"; }

# On one rank the file may be a pipe, which cannot seek back over the
# line after the first lines.
cat o.txt | ./p --run-order=/dev/stdin >rep.out 2>rep.err || { cat rep.err; fail "a pipe"; }
cmp -s rec.out rep.out || fail "the replay from a pipe printed $(cat rep.out)"

grep -v '^program \|^param ' o.txt >bare.txt
./p --run-order=bare.txt >rep.out 2>rep.err || { cat rep.err; fail "a file without its first lines"; }
cmp -s rec.out rep.out || fail "the bare replay printed $(cat rep.out), the run $(cat rec.out)"
test -s rep.err && { cat rep.err; fail "a bare file's replay warned"; }
cat bare.txt | ./p --run-order=/dev/stdin >rep.out 2>rep.err || { cat rep.err; fail "a bare pipe"; }
cmp -s rec.out rep.out || fail "the bare replay from a pipe printed $(cat rep.out)"
exit 0
