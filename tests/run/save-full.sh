#!/bin/sh
# save on a file system that fills up, or that is read-only: on 1, 2 and 3
# ranks every rank exits non-zero, the error names the file and says why,
# the good old file is kept byte for byte, no temporary file is left, and
# nothing is printed after the failure.  A read-only file system is found
# before the program starts its work.
#
# Needs a small tmpfs mounted by the test (root with CAP_SYS_ADMIN);
# skipped, with a message, where mounting is not allowed.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp
mnt=$tmp/mnt
mkdir "$mnt" || exit 1
cleanup() {
	umount "$mnt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

if ! mount -t tmpfs -o size=64k tmpfs "$mnt" 2>"$tmp/mount.err"; then
	echo "SKIP: cannot mount a small tmpfs here: $(cat "$tmp/mount.err")"
	exit 77
fi

cat >"$tmp/big.sap" <<'SAP'
// 20000 lines of about 6 bytes: more than the 64 KiB file system holds.
param long n = 20000;
param string out = "out.txt";
dvector<double> w(n);
print("start\n");
async for (long i = 0; i < n; i++)
    w[i] = i * 0.5;
save(w, out);
print("done\n");
SAP
"$SAPC" -O2 -o "$tmp/big" "$tmp/big.sap" || fail "sapc big.sap"

# The good old file, from a small run.
$MPIEXEC -n 1 "$tmp/big" --n=10 --out="$mnt/model.txt" >/dev/null 2>&1 ||
	fail "small save on the tmpfs"
cp "$mnt/model.txt" "$tmp/model.good" || exit 1
test "$(wc -l <"$tmp/model.good")" = 10 || fail "small save: not 10 lines"

for np in 1 2 3; do
	timeout 120 $MPIEXEC -n $np "$tmp/big" --out="$mnt/model.txt" \
		>"$tmp/out.$np" 2>"$tmp/err.$np"
	rc=$?
	test $rc = 124 && fail "full disk on $np ranks: still running after 120 s"
	test $rc = 0 && fail "full disk on $np ranks: exit status 0"
	grep -q "big.sap:8:1: error: cannot write '$mnt/model.txt': No space left on device" \
		"$tmp/err.$np" || { cat "$tmp/err.$np"; fail "full disk on $np ranks: no error naming the file and ENOSPC"; }
	cmp -s "$tmp/model.good" "$mnt/model.txt" ||
		fail "full disk on $np ranks: the old file was not kept"
	test "$(ls -A "$mnt")" = model.txt ||
		fail "full disk on $np ranks: left in the directory: $(ls -A "$mnt")"
	test "$(cat "$tmp/out.$np")" = start ||
		fail "full disk on $np ranks: printed '$(cat "$tmp/out.$np")', not only 'start'"
done

# The tools that write files: the old file kept, no temporary left.
rm -f "$mnt/model.txt"
printf '1 2 3.5\n' >"$mnt/r.txt"
"$top_builddir/tools/genratings" --users=500 --items=300 --ratings=20000 --seed=3 \
	--out="$mnt/r.txt" 2>"$tmp/err" && fail "genratings on a full disk: exit status 0"
grep -q "cannot write $mnt/r.txt: No space left on device" "$tmp/err" ||
	{ cat "$tmp/err"; fail "genratings on a full disk: no error"; }
test "$(cat "$mnt/r.txt")" = "1 2 3.5" || fail "genratings on a full disk: old file not kept"
awk 'BEGIN { for (i = 0; i < 5000; i++) print "\tThe/at dog/nn barks/vbz ./." }' \
	>"$tmp/brown.txt"
printf 'old\n' >"$mnt/b.txt"
"$top_builddir/tools/brown2txt" -o "$mnt/b.txt" "$tmp/brown.txt" 2>"$tmp/err" &&
	fail "brown2txt on a full disk: exit status 0"
grep -q "$mnt/b.txt: No space left on device" "$tmp/err" ||
	{ cat "$tmp/err"; fail "brown2txt on a full disk: no error"; }
test "$(cat "$mnt/b.txt")" = old || fail "brown2txt on a full disk: old file not kept"
test "$(ls -A "$mnt" | LC_ALL=C sort | tr '\n' ' ')" = "b.txt r.txt " ||
	fail "tools on a full disk: left in the directory: $(ls -A "$mnt")"
rm -f "$mnt/b.txt" "$mnt/r.txt"
cp "$tmp/model.good" "$mnt/model.txt"

# Read-only: found at start, before "start" is printed.
mount -o remount,ro "$mnt" || fail "remount read-only"
for np in 1 2 3; do
	timeout 120 $MPIEXEC -n $np "$tmp/big" --n=10 --out="$mnt/model.txt" \
		>"$tmp/out.$np" 2>"$tmp/err.$np"
	rc=$?
	test $rc = 0 && fail "read-only on $np ranks: exit status 0"
	grep -q "big.sap:8:1: error: cannot write '$mnt/model.txt': Read-only file system (checked at start" \
		"$tmp/err.$np" || { cat "$tmp/err.$np"; fail "read-only on $np ranks: no error at start"; }
	test ! -s "$tmp/out.$np" || fail "read-only on $np ranks: printed '$(cat "$tmp/out.$np")'"
	cmp -s "$tmp/model.good" "$mnt/model.txt" || fail "read-only on $np ranks: file changed"
done
exit 0
