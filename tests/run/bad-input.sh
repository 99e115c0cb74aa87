#!/bin/sh
# Bad input, on 1 and 3 ranks: each case is a clear error (one
# message, non-zero exit, nothing printed after it) or the documented
# behaviour of sap-run(1):
#  - a UTF-8 byte-order mark at the start of a data file is skipped (line
#    numbers unchanged);
#  - a NUL byte in a line is an error naming the file, line and column;
#    a file of UTF-16 is an error that says so, and so are a no-break
#    space between two fields and lines ended by a CR alone;
#  - nan and inf in a data file or in a param are errors, and so is a
#    nonzero number too small for its type (1e-50 in a float: not 0);
#  - control bytes from a data file (a field, a map key) or the command
#    line are escaped in messages (\x01), and a long message is never cut
#    short, but a long token (a number out of range) is, after 60 bytes;
#    a CR ending a --run-order line shows as \x0d;
#  - an empty or comment-only data file loads no elements, with a warning;
#  - a negative count param runs a counted loop no times (C's semantics);
#  - a failed write to standard output, to --dump-order's file, and a
#    --dump-order file that cannot be created (found at start), and a
#    --run-order that is a pipe on several ranks, are errors (exit status
#    2, as for any option that cannot be used, when found at start-up);
#  - so is an empty --dump-order=, --run-order= or --checkpoint-dir=;
#  - and a --run-order that is a directory;
#  - and --dump-order naming the file --run-order reads;
#  - and --dump-order or --run-order with --resume, which a checkpoint
#    cannot continue.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cd "$tmp" || exit 1
cat >p.sap <<'SAP'
struct R { int i; string s; float r; }
param string data = "good.txt";
param double gamma = 0.5;
param long iters = 3;
dvector<R> A = load(data);
dvector<double> w(4);
print("loaded\n");
async for (long n = 0; n < len(A); n++)
    w[A[n].i % 4] += A[n].r;
double sum = 0;
long chars = 0;
for (long n = 0; n < len(A); n++) {
    sum += A[n].i * A[n].r;
    chars += len(A[n].s);
}
long runs = 0;
for (long k = 0; k < iters; k++)
    runs += 1;
print("n %d sum %g chars %d gamma %g runs %d w %g\n", len(A), sum, chars, gamma, runs,
      w[1] + w[2]);
SAP
"$SAPC" -O2 -o p p.sap || fail "sapc p.sap"

printf '1 a 2.5\n# c\n2 bb 3\n' >good.txt
printf '\357\273\277' | cat - good.txt >bom.txt
printf '\357\273\2771 a 2.5\n2 bb x\n' >bomerr.txt
printf '1 a 2.5\n# c\n2 b\000b 3\n' >nul.txt
printf '1 a 2.5\n2 b nan\n' >nan.txt
printf '1 a -inf\n' >inf.txt
printf '1 a 1e-40\n2 b 1e-50\n' >tiny.txt
printf '1 a \001\033[2J\n' >ctl.txt
printf '1\302\2402 a 2.5\n' >nbsp.txt
printf '\377\3761\000 \000a\000\n\000' >u16.txt
printf '1 a 2.5\r2 b 3\r' >cr.txt
# 60 nines, as messages show them, and a field of 200.
nines=$(printf '%060d' 0 | tr 0 9)
printf '%s%s%s99 a 1\n' "$nines" "$nines" "$nines" >big.txt
: >empty.txt
mkdir adir
printf '# nothing\n\n   \n' >comment.txt
# Longer than any fixed message buffer of 1 KiB, in components of 150.
long=$tmp/$(printf '%0150d/' 1 2 3 4 5 6 7 8 9 10)data.txt

$MPIEXEC -n 1 ./p >want 2>err || { cat err; fail "good.txt: non-zero exit status"; }
test "$(sed -n 2p want)" = "n 2 sum 8.5 chars 3 gamma 0.5 runs 3 w 5.5" ||
	fail "good.txt: printed '$(sed -n 2p want)'"

# Over 1 and 3 ranks (an uneven split of the lines), or the ranks CI's
# sanitized pass asks for: the parsing is the same on every rank, and
# other tests cover an error's abort over 2 ranks.
ranks=${SAP_TEST_RANKS:-1 3}

# An error: exit status, the one message (grep -F), the output before it.
error() {
	name=$1 status=$2 msg=$3 out=$4
	shift 4
	timeout 120 $MPIEXEC "$@" >out 2>err
	rc=$?
	test $rc = 124 && fail "$name: still running after 120 s"
	test $rc = "$status" || { cat err; fail "$name: exit status $rc, expected $status"; }
	grep -qF -- "$msg" err || { cat err; fail "$name: no '$msg'"; }
	test "$(grep -c 'error:' err)" = 1 || { cat err; fail "$name: not exactly one error"; }
	test "$(cat out)" = "$out" || fail "$name: printed '$(cat out)', expected '$out'"
}

for np in $ranks; do
	run="-n $np ./p"
	$MPIEXEC $run --data=bom.txt >got 2>err || { cat err; fail "BOM on $np ranks: non-zero exit status"; }
	cmp -s want got || fail "BOM on $np ranks: not the results without it"
	test ! -s err || { cat err; fail "BOM on $np ranks: a message"; }
	error "BOM, bad line 2, $np ranks" 1 \
		"bomerr.txt:2: error: field 'r': expected a float, got \"x\"" "" $run --data=bomerr.txt
	error "NUL, $np ranks" 1 \
		"nul.txt:3: error: a NUL byte at column 4: data files are text, which holds none" "" \
		$run --data=nul.txt
	error "nan, $np ranks" 1 \
		"nan.txt:2: error: field 'r': expected a finite float, got \"nan\" (nan and inf are not accepted)" \
		"" $run --data=nan.txt
	error "inf, $np ranks" 1 \
		"inf.txt:1: error: field 'r': expected a finite float, got \"-inf\" (nan and inf are not accepted)" \
		"" $run --data=inf.txt
	error "a number that underflows to 0, $np ranks" 1 \
		"tiny.txt:2: error: field 'r': 1e-50 is too small for float: it would be 0" "" \
		$run --data=tiny.txt
	error "--gamma=1e-400, $np ranks" 2 \
		"p: error: --gamma: 1e-400 is too small for DOUBLE: it would be 0" "" $run --gamma=1e-400
	error "a no-break space, $np ranks" 1 \
		"nbsp.txt:1: error: field 'i': expected an int, got \"1$(printf '\302\240')2\" (with a no-break space, U+00A0, which does not separate fields)" \
		"" $run --data=nbsp.txt
	error "UTF-16, $np ranks" 1 \
		"error: 'u16.txt' is UTF-16 text (it starts with the byte-order mark FF FE): data files are UTF-8; convert it (iconv -f UTF-16 -t UTF-8)" \
		"" $run --data=u16.txt
	error "lines ended by CR alone, $np ranks" 1 \
		"cr.txt:1: error: extra field \"2\" after R: the line holds carriage returns, so its lines may end in a CR alone" \
		"" $run --data=cr.txt
	error "control bytes, $np ranks" 1 \
		"ctl.txt:1: error: field 'r': expected a float, got \"\\x01\\x1b[2J\"" "" $run --data=ctl.txt
	error "a long number, $np ranks" 1 \
		"big.txt:1: error: field 'i': $nines... is out of range for int" "" $run --data=big.txt
	test "$(grep error: err | wc -c)" -lt 200 ||
		{ cat err; fail "a long number, $np ranks: printed whole"; }
	error "--iters=<a long number>, $np ranks" 2 \
		"p: error: --iters: $nines... is out of range for LONG" "" $run --iters="$nines$nines"
	test "$(grep error: err | wc -c)" -lt 200 ||
		{ cat err; fail "--iters=<a long number>, $np ranks: printed whole"; }
	error "a long path, $np ranks" 1 \
		"p.sap:5:16: error: cannot read '$long': No such file or directory" "" $run --data="$long"
	grep -q "directory\$" err || fail "a long path, $np ranks: the message is cut short"
	for f in empty comment; do
		$MPIEXEC $run --data=$f.txt >got 2>err || { cat err; fail "$f on $np ranks: non-zero exit status"; }
		test "$(sed -n 2p got)" = "n 0 sum 0 chars 0 gamma 0.5 runs 3 w 0" ||
			fail "$f on $np ranks: printed '$(sed -n 2p got)'"
		test "$(cat err)" = "p.sap:5:16: warning: '$f.txt' holds no elements: it is empty or has only blank and comment lines" ||
			{ cat err; fail "$f on $np ranks: not the one warning"; }
	done
	for v in nan inf -inf NAN; do
		error "--gamma=$v, $np ranks" 2 \
			"p: error: --gamma: expected a finite DOUBLE, got '$v' (nan and inf are not accepted)" \
			"" $run --gamma=$v
	done
	error "--gamma with a control byte, $np ranks" 2 \
		"p: error: --gamma: expected a DOUBLE, got '1\\x01'" "" $run "$(printf -- '--gamma=1\001')"
	$MPIEXEC $run --iters=-5 >got 2>err || { cat err; fail "--iters=-5 on $np ranks: non-zero exit status"; }
	test "$(sed -n 2p got)" = "n 2 sum 8.5 chars 3 gamma 0.5 runs 0 w 5.5" ||
		fail "--iters=-5 on $np ranks: printed '$(sed -n 2p got)'"
	# An empty value, as from an unset variable, is not taken as "none".
	for o in dump-order run-order checkpoint-dir; do
		error "--$o= (empty), $np ranks" 2 "p: error: --$o needs a value" "" $run --$o=
	done
	error "--dump-order that cannot be created, $np ranks" 2 \
		"error: --dump-order=/etc/passwd/x: Not a directory" "" $run --dump-order=/etc/passwd/x
	error "--run-order that is a directory, $np ranks" 2 \
		"error: --run-order=adir: Is a directory" "" $run --run-order=adir
	# With --resume too: the run would go on taking no checkpoint.
	error "--checkpoint-dir that is a file with --resume, $np ranks" 2 \
		"error: --checkpoint-dir=got: Not a directory" "" $run --checkpoint-dir=got --resume
	# A checkpoint does not hold a place in the order file: a resumed
	# recording or replay is refused, and the file left as it was.
	echo "a record" >rec.txt
	for o in dump-order run-order; do
		error "--$o with --resume, $np ranks" 2 \
			"p: error: --resume cannot be used with --$o" "" \
			$run --$o=rec.txt --checkpoint-dir=ck --resume
		test "$(cat rec.txt)" = "a record" || fail "--$o with --resume, $np ranks: the file changed"
	done
	# --dump-order empties its file at the start: not the one being
	# replayed, by name or by another path to it.
	for d in rec.txt ./rec.txt; do
		error "--dump-order=$d and --run-order=rec.txt, $np ranks" 2 \
			"p: error: --dump-order and --run-order name the same file, rec.txt" "" \
			$run --run-order=rec.txt --dump-order=$d
		test "$(cat rec.txt)" = "a record" || fail "--dump-order=$d, $np ranks: the file changed"
	done
	if test -w /dev/full; then
		# Its first lines, what the run is of, are written out at
		# the start, before any work.
		error "--dump-order=/dev/full, $np ranks" 2 \
			"error: --dump-order=/dev/full: cannot write: No space left on device" \
			"" $run --dump-order=/dev/full
	fi
	if test $np -gt 1; then
		echo "loop 1 invocation 1 count 2" | error "--run-order from a pipe, $np ranks" 2 \
			"error: --run-order=/dev/stdin: not a regular file; on several ranks every rank reads it, so it cannot be a pipe or a device" \
			"" $run --run-order=/dev/stdin
		# A shell's <(cat f) is /dev/fd/63 on rank 0 and nothing on
		# the others, which said "No such file or directory".
		error "--run-order from a process substitution, $np ranks" 2 \
			"error: --run-order=/dev/fd/63: not a regular file; on several ranks every rank reads it, so it cannot be a pipe or a device" \
			"" $run --run-order=/dev/fd/63
	fi
done

# A --run-order line with a CR (a file with CRLF line ends) shows it.
printf 'loop 1 invocation 1 count 2\r\n0\r\n1\r\n' >crlf.txt
error "--run-order with CRLF" 1 \
	'error: --run-order=crlf.txt:1: expected "loop 1 invocation 1 count 2", got "loop 1 invocation 1 count 2\x0d"' \
	"loaded" -n 1 ./p --run-order=crlf.txt

# A map key read from a data file, in a message.
cat >k.sap <<'SAP'
struct W { string w; }
param string data = "w.txt";
dvector<W> A = load(data);
dmap<string, int> m;
print("%d\n", m[A[0].w]);
SAP
"$SAPC" -O2 -o k k.sap || fail "sapc k.sap"
printf 'a\001b\n' >w.txt
# Driver code runs on every rank, and so may its error: each rank that
# gets there says the same.
for np in $ranks; do
	$MPIEXEC -n $np ./k >out 2>err && fail "a map key, $np ranks: exit status 0"
	grep -qF "k.sap:5:16: error: key \"a\\x01b\" not in dmap 'm'" err ||
		{ cat err; fail "a map key with a control byte, $np ranks: not escaped"; }
	test "$(grep 'error:' err | sed 's/^\[rank [0-9]*\] //' | sort -u | wc -l)" = 1 ||
		{ cat err; fail "a map key, $np ranks: different errors"; }
	test ! -s out || fail "a map key, $np ranks: printed '$(cat out)'"
done

# Standard output on a full disk: the program itself, not mpiexec, writes
# it when started alone.
if test -w /dev/full; then
	./p >/dev/full 2>err
	rc=$?
	test $rc = 0 && fail "stdout on /dev/full: exit status 0"
	grep -qxF "p: error: cannot write standard output: No space left on device" err ||
		{ cat err; fail "stdout on /dev/full: no error"; }
	./p --help >/dev/full 2>err && fail "--help on /dev/full: exit status 0"
	grep -qxF "p: error: cannot write standard output: No space left on device" err ||
		{ cat err; fail "--help on /dev/full: no error"; }
fi
exit 0
