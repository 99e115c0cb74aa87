#!/bin/sh
# What save leaves behind and when it fails, on 1, 2 and 3 ranks:
#  - the temporary file is hidden (.FILE.sap-tmp.HOST.PID) and gone after
#    the save; the temporaries of earlier runs that were killed while
#    saving the same FILE on this host are removed; those of a process
#    still running, of another host and of other files are not touched;
#  - a file name of 250 bytes saves (the temporary's name is kept short);
#  - a save whose file cannot be created (a directory that is a regular
#    file, a missing directory, a directory as the file, an empty name)
#    fails before the program starts its work, saying which save, which
#    file and why; a save under an if is not checked before it runs;
#  - a vector holding nan or inf is not saved: the error names the vector
#    and the element, and the old file is kept (load could not read it).
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/ck.sap" <<'SAP'
param long n = 1000;
param string out = "out.txt";
param string dir = ".";
param double scale = 1;
param double top = 1;
param bool other = false;
dvector<double> w(n);
print("training\n");
for (int e = 0; e < 2; e++) {
    async for (long i = 0; i < n; i++)
        w[i] += i * scale;
    save(w, dir + "/checkpoint.txt");
}
if (other)
    save(w, "/nonexistent/never.txt");
w[n / 2] = top / scale;
save(w, out);
print("done\n");
SAP
"$SAPC" -O2 -o "$tmp/ck" "$tmp/ck.sap" || fail "sapc ck.sap"
host=$(uname -n)
# A PID that is surely gone: a finished child's.
dead=$(sh -c 'echo $$')

for np in 1 2 3; do
	d=$tmp/run$np
	mkdir "$d" || exit 1
	head -c 100000 /dev/zero >"$d/.out.txt.sap-tmp.$host.$dead"
	: >"$d/.out.txt.sap-tmp.$host.$$"
	: >"$d/.out.txt.sap-tmp.otherhost.$dead"
	: >"$d/.other.txt.sap-tmp.$host.$dead"
	$MPIEXEC -n $np "$tmp/ck" --out="$d/out.txt" --dir="$d" >"$d/stdout" 2>"$d/stderr" ||
		{ cat "$d/stderr"; fail "$np ranks: non-zero exit status"; }
	printf 'training\ndone\n' | cmp -s - "$d/stdout" || fail "$np ranks: output"
	test "$(wc -l <"$d/out.txt")" = 1000 || fail "$np ranks: out.txt not 1000 lines"
	test "$(sed -n 3p "$d/out.txt")" = 4 || fail "$np ranks: out.txt line 3 not 4"
	left=$(cd "$d" && ls -A | LC_ALL=C sort | tr '\n' ' ')
	want=$(printf '%s\n' ".other.txt.sap-tmp.$host.$dead" ".out.txt.sap-tmp.$host.$$" \
		".out.txt.sap-tmp.otherhost.$dead" checkpoint.txt out.txt stderr stdout |
		LC_ALL=C sort | tr '\n' ' ')
	test "$left" = "$want" || fail "$np ranks: directory holds '$left', expected '$want'"
done

# A name of 250 bytes: the temporary's stays within NAME_MAX too.
long=$(printf '%0250d' 7)
for np in 1 2 3; do
	d=$tmp/run$np
	$MPIEXEC -n $np "$tmp/ck" --out="$d/$long" --dir="$d" >/dev/null 2>"$d/stderr" ||
		{ cat "$d/stderr"; fail "$np ranks, a long name: non-zero exit status"; }
	cmp -s "$d/out.txt" "$d/$long" || fail "$np ranks, a long name: not the same file"
	rm -f "$d/$long" "$d/stderr"
done

# Files that cannot be created: found before "training" is printed.
for np in 1 2 3; do
	for case in "--out=/etc/passwd/x|17:1|'/etc/passwd/x': Not a directory" \
		"--dir=$tmp/none|12:5|'$tmp/none/checkpoint.txt': No such file or directory" \
		"--out=$tmp|17:1|'$tmp': Is a directory" \
		"--out=|17:1|'': No such file or directory"; do
		arg=${case%%|*}
		rest=${case#*|}
		at=${rest%%|*}
		what=${rest#*|}
		rm -f "$tmp/stdout" "$tmp/stderr"
		(cd "$tmp" && $MPIEXEC -n $np ./ck "$arg" >stdout 2>stderr)
		test $? = 0 && fail "$np ranks, $arg: exit status 0"
		grep -qF "ck.sap:$at: error: cannot write $what (checked at start, before any work that the save would lose)" "$tmp/stderr" ||
			{ cat "$tmp/stderr"; fail "$np ranks, $arg: no error at start"; }
		test ! -s "$tmp/stdout" || fail "$np ranks, $arg: printed '$(cat "$tmp/stdout")'"
		test "$(grep -c 'error:' "$tmp/stderr")" = 1 ||
			{ cat "$tmp/stderr"; fail "$np ranks, $arg: not exactly one error"; }
	done
	# A save under an if: not checked unless it runs.
	(cd "$tmp/run$np" && $MPIEXEC -n $np "$tmp/ck" >/dev/null 2>&1) ||
		fail "$np ranks: a save under an if was checked before it ran"
done

# nan and inf: the old file kept, the vector and the element named.
for np in 1 2 3; do
	d=$tmp/run$np
	cp "$d/out.txt" "$tmp/good"
	for case in "0|nan" "1|inf" "-1|-inf"; do
		t=${case%%|*}
		what=${case#*|}
		$MPIEXEC -n $np "$tmp/ck" --out="$d/out.txt" --dir="$d" --scale=0 --top=$t \
			>"$tmp/stdout" 2>"$tmp/stderr"
		test $? = 0 && fail "$np ranks, $what: exit status 0"
		grep -qF "ck.sap:17:1: error: cannot save 'w' to '$d/out.txt': element 500 would not load back: it holds $what, which is not a number load reads; '$d/out.txt' is left as it was" "$tmp/stderr" ||
			{ cat "$tmp/stderr"; fail "$np ranks, $what: no error naming w and element 500"; }
		cmp -s "$tmp/good" "$d/out.txt" || fail "$np ranks, $what: old file not kept"
		test "$(cd "$d" && ls -A | grep -c 'sap-tmp.*\.[0-9]*$')" = 3 ||
			fail "$np ranks, $what: a temporary file left: $(ls -A "$d")"
		test "$(cat "$tmp/stdout")" = training || fail "$np ranks, $what: printed 'done'"
	done
done
exit 0
