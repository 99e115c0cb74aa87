#!/bin/sh
# Input that is not a regular file, on 1, 2 and 3 ranks: a pipe as
# /dev/stdin and a FIFO are read once, by rank 0, and sent to every rank,
# giving the same results as the file itself; a directory, a missing file
# and a path through a regular file fail at once with one clear error and
# a non-zero exit; /dev/null loads no elements, with a warning.  A file
# that differs between the ranks is an error.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

# Numbers and strings (the two ways a vector is loaded on several ranks),
# then a loop over them.
cat >"$tmp/in.sap" <<'SAP'
struct R { int i; float r; }
struct S { int i; string w; }
param string data = "in.txt";
param string words = "words.txt";
dvector<R> A = load(data);
dvector<S> B = load(words);
dvector<double> w(4);
async for (long n = 0; n < len(A); n++)
    w[A[n].i % 4] += A[n].r;
long chars = 0;
for (long n = 0; n < len(B); n++)
    chars += B[n].i * len(B[n].w);
print("n %d w %g %g %g %g\n", len(A), w[0], w[1], w[2], w[3]);
print("words %d chars %d\n", len(B), chars);
SAP
"$SAPC" -O2 -o "$tmp/in" "$tmp/in.sap" || fail "sapc in.sap"
awk 'BEGIN { for (i = 1; i <= 3000; i++) print i, i / 4 }' >"$tmp/in.txt"
awk 'BEGIN { for (i = 1; i <= 500; i++) print i, "w" i }' >"$tmp/words.txt"
(cd "$tmp" && $MPIEXEC -n 1 ./in >want) || fail "from files"

for np in 1 2 3; do
	timeout 120 $MPIEXEC -n $np "$tmp/in" --data=/dev/stdin --words="$tmp/words.txt" \
		<"$tmp/in.txt" >"$tmp/got" 2>"$tmp/err"
	rc=$?
	test $rc = 124 && fail "numbers from /dev/stdin on $np ranks: still running after 120 s"
	test $rc = 0 || { cat "$tmp/err"; fail "numbers from /dev/stdin on $np ranks: exit status $rc"; }
	cmp -s "$tmp/want" "$tmp/got" || fail "numbers from /dev/stdin on $np ranks: other results"

	cat "$tmp/words.txt" | timeout 120 $MPIEXEC -n $np "$tmp/in" --data="$tmp/in.txt" \
		--words=/dev/stdin >"$tmp/got" 2>"$tmp/err"
	rc=$?
	test $rc = 124 && fail "strings from a pipe on $np ranks: still running after 120 s"
	test $rc = 0 || { cat "$tmp/err"; fail "strings from a pipe on $np ranks: exit status $rc"; }
	cmp -s "$tmp/want" "$tmp/got" || fail "strings from a pipe on $np ranks: other results"

	rm -f "$tmp/fifo"
	mkfifo "$tmp/fifo" || fail "mkfifo"
	cat "$tmp/in.txt" >"$tmp/fifo" &
	timeout 120 $MPIEXEC -n $np "$tmp/in" --data="$tmp/fifo" --words="$tmp/words.txt" \
		>"$tmp/got" 2>"$tmp/err"
	rc=$?
	wait
	test $rc = 124 && fail "a FIFO on $np ranks: still running after 120 s"
	test $rc = 0 || { cat "$tmp/err"; fail "a FIFO on $np ranks: exit status $rc"; }
	cmp -s "$tmp/want" "$tmp/got" || fail "a FIFO on $np ranks: other results"

	for case in "$tmp|Is a directory" "$tmp/none.txt|No such file or directory" \
		"/etc/passwd/x|Not a directory"; do
		path=${case%%|*}
		why=${case#*|}
		timeout 120 $MPIEXEC -n $np "$tmp/in" --data="$path" --words="$tmp/words.txt" \
			>"$tmp/got" 2>"$tmp/err"
		rc=$?
		test $rc = 124 && fail "$path on $np ranks: still running after 120 s"
		test $rc = 0 && fail "$path on $np ranks: exit status 0"
		grep -qF "in.sap:5:16: error: cannot read '$path': $why" "$tmp/err" ||
			{ cat "$tmp/err"; fail "$path on $np ranks: no '$why'"; }
		test "$(grep -c 'error:' "$tmp/err")" = 1 ||
			{ cat "$tmp/err"; fail "$path on $np ranks: not exactly one error"; }
		test ! -s "$tmp/got" || fail "$path on $np ranks: printed something"
	done

	timeout 120 $MPIEXEC -n $np "$tmp/in" --data=/dev/null --words="$tmp/words.txt" \
		>"$tmp/got" 2>"$tmp/err" || { cat "$tmp/err"; fail "/dev/null on $np ranks: non-zero exit status"; }
	grep -q '^n 0 w 0 0 0 0$' "$tmp/got" || fail "/dev/null on $np ranks: not 0 elements"
	grep -qF "in.sap:5:16: warning: '/dev/null' holds no elements: it is empty or has only blank and comment lines" "$tmp/err" ||
		{ cat "$tmp/err"; fail "/dev/null on $np ranks: no warning"; }
	test "$(grep -c 'warning:' "$tmp/err")" = 1 || fail "/dev/null on $np ranks: not one warning"
done
# A file that differs between the ranks' nodes (here: their working
# directories): an error naming both sizes, not lines lost or repeated.
mkdir "$tmp/r0" "$tmp/r1" || exit 1
cp "$tmp/in.txt" "$tmp/r0/d.txt"
head -n 500 "$tmp/in.txt" >"$tmp/r1/d.txt"
cp "$tmp/words.txt" "$tmp/r0/words.txt"
cp "$tmp/words.txt" "$tmp/r1/words.txt"
big=$(wc -c <"$tmp/r0/d.txt" | tr -d ' ')
small=$(wc -c <"$tmp/r1/d.txt" | tr -d ' ')
for np in 2 3; do
	timeout 120 $MPIEXEC -n $((np - 1)) sh -c "cd '$tmp/r0' && exec ../in --data=d.txt" : \
		-n 1 sh -c "cd '$tmp/r1' && exec ../in --data=d.txt" >"$tmp/got" 2>"$tmp/err"
	rc=$?
	test $rc = 124 && fail "a file that differs on $np ranks: still running after 120 s"
	test $rc = 0 && fail "a file that differs on $np ranks: exit status 0"
	grep -qF "in.sap:5:16: error: 'd.txt' has $small bytes on rank $((np - 1)) but $big on rank 0: every rank must read the same file" "$tmp/err" ||
		{ cat "$tmp/err"; fail "a file that differs on $np ranks: no error"; }
	test ! -s "$tmp/got" || fail "a file that differs on $np ranks: printed something"
done
# A FIFO on one rank where rank 0 has a regular file: refused at once, not
# waited on for a writer that never comes.
rm -f "$tmp/r1/d.txt"
mkfifo "$tmp/r1/d.txt" || fail "mkfifo"
timeout 120 $MPIEXEC -n 1 sh -c "cd '$tmp/r0' && exec ../in --data=d.txt" : \
	-n 1 sh -c "cd '$tmp/r1' && exec ../in --data=d.txt" >"$tmp/got" 2>"$tmp/err"
rc=$?
test $rc = 124 && fail "a FIFO on rank 1 only: still running after 120 s"
test $rc = 0 && fail "a FIFO on rank 1 only: exit status 0"
grep -qF "in.sap:5:16: error: cannot read 'd.txt': a regular file on rank 0 but not on rank 1" \
	"$tmp/err" || { cat "$tmp/err"; fail "a FIFO on rank 1 only: no error"; }
exit 0
