#!/bin/sh
# A full disk (ENOSPC) or a failing one (EIO) while a checkpoint is
# written, through an LD_PRELOAD shim (tests/run/ckpt-faults.c) that makes
# the first or a later write, fsync or rename of a checkpoint's file fail
# on one rank: the run warns that the checkpoint was not written, goes on
# and ends as an uninterrupted run does, and no checkpoint it left is
# torn: --resume then passes none over and resumes from the newest.
# A directory that cannot be one (a file, a path under /proc) is an error
# at the start, on 1 and 2 ranks: exit status 2, one message naming it.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || { echo "SKIP: no C compiler for the shim"; exit 77; }
"$cc" -std=c11 -shared -fPIC -o shim.so "$top_srcdir/tests/run/ckpt-faults.c" -ldl ||
	fail "the shim did not build"

cat >p.sap <<'SAP'
param int passes = 4;
param string out = "w.txt";
dvector<double> w(3000);
double s = 0;
for (int p = 0; p < passes; p++) {
    async for (long i = 0; i < len(w); i++)
        w[i] += rand() * (i % 7);
    s = 0;
    async for (long i = 0; i < len(w); i++) reduce(+: s) {
        s += w[i];
    }
    print("pass %d sum %.17g\n", p, s);
}
save(w, out);
SAP
"$SAPC" -O2 -o p p.sap || fail "sapc p.sap"
run="$MPIEXEC -n 2"
$run ./p --out=full.txt >full.out 2>full.err </dev/null || { cat full.err; fail "the run failed"; }

# Under AddressSanitizer (the CI's second build) the shim comes before
# its runtime in the preload list, which it would refuse.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS

for fault in write:1:ENOSPC write:4:EIO fsync:1:EIO fsync:3:ENOSPC rename:1:ENOSPC rename:4:EIO; do
	for rank in 0 1; do
		what="$fault on rank $rank"
		rm -rf ck w.txt
		# The shim goes to the ranks only, not to mpiexec.
		$run -x LD_PRELOAD="$PWD/shim.so" -x SAP_FAULT="$fault" -x SAP_FAULT_RANK="$rank" -x ASAN_OPTIONS \
			./p --checkpoint-dir=ck --checkpoint-every=1 >p1.out 2>p1.err </dev/null ||
			{ cat p1.err; fail "$what: the run failed"; }
		grep -q "warning: checkpoint .* not written\|warning: cannot .*ckpt-.*(the run goes on)" p1.err ||
			{ cat p1.err; fail "$what: no warning of the failed checkpoint"; }
		cmp -s full.out p1.out || fail "$what: the output differs"
		cmp -s full.txt w.txt || fail "$what: the saved vector differs"
		$run ./p --checkpoint-dir=ck --checkpoint-every=1 --resume >p2.out 2>p2.err </dev/null ||
			{ cat p2.err; fail "$what: --resume failed"; }
		grep -q "passing over" p2.err && { cat p2.err; fail "$what: a torn checkpoint is marked complete"; }
		grep -q "^resuming from checkpoint" p2.err || { cat p2.err; fail "$what: did not resume"; }
		tail -n "$(wc -l <p2.out)" full.out | cmp -s - p2.out || fail "$what: the resumed output differs"
		cmp -s full.txt w.txt || fail "$what: the vector saved after resuming differs"
	done
done

# A disk that stays full from the first checkpoint or a later one on: the
# run goes on, and leaves the checkpoints it wrote, not a directory for
# every one it could not.
for rank in 0 1; do
	for from in 2 6; do
		what="a disk full from write $from on rank $rank"
		rm -rf ck w.txt
		$run -x LD_PRELOAD="$PWD/shim.so" -x SAP_FAULT="write:$from+:ENOSPC" -x SAP_FAULT_RANK="$rank" \
			-x ASAN_OPTIONS ./p --checkpoint-dir=ck --checkpoint-every=1 >p1.out 2>p1.err </dev/null ||
			{ cat p1.err; fail "$what: the run failed"; }
		cmp -s full.out p1.out || fail "$what: the output differs"
		grep -q "checkpoints in all could not be written" p1.err ||
			{ cat p1.err; fail "$what: no count of the failures"; }
		for d in ck/ckpt-*; do
			test -d "$d" || continue
			test -e "$d/COMPLETE" || { ls -R ck; fail "$what: left $d, which is not complete"; }
		done
	done
done

: >afile
for d in afile /proc/sap-no-such-dir; do
	for np in 1 2; do
		$MPIEXEC -n $np ./p --checkpoint-dir=$d >bad.out 2>bad.err </dev/null
		rc=$?
		test $rc = 2 || { cat bad.err; fail "--checkpoint-dir=$d on $np ranks: exit status $rc, not 2"; }
		test "$(grep -c "error: --checkpoint-dir=$d: " bad.err)" = 1 ||
			{ cat bad.err; fail "--checkpoint-dir=$d on $np ranks: not one error naming it"; }
		test -s bad.out && { cat bad.out; fail "--checkpoint-dir=$d on $np ranks: the program ran"; }
	done
done
# Checkpoint settings without a directory would write none; and a period
# that is no number of seconds.
for a in "--checkpoint-every=2|--checkpoint-every needs --checkpoint-dir=DIR" \
	"--checkpoint-seconds=5|--checkpoint-seconds needs --checkpoint-dir=DIR" \
	"--checkpoint-seconds=1e400 --checkpoint-dir=ck|--checkpoint-seconds: 1e400 is out of range" \
	"--checkpoint-seconds=nan --checkpoint-dir=ck|--checkpoint-seconds: expected a number of seconds above 0"; do
	opts=${a%%|*} msg=${a#*|}
	for np in 1 2; do
		# shellcheck disable=SC2086
		$MPIEXEC -n $np ./p $opts >bad.out 2>bad.err </dev/null
		rc=$?
		test $rc = 2 || { cat bad.err; fail "$opts on $np ranks: exit status $rc, not 2"; }
		test "$(grep -cF -- "error: $msg" bad.err)" = 1 ||
			{ cat bad.err; fail "$opts on $np ranks: not one error '$msg'"; }
		test -s bad.out && { cat bad.out; fail "$opts on $np ranks: the program ran"; }
	done
done
exit 0
