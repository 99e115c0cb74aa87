#!/bin/sh
# The runtime's options have one list, runtime/core/options.def.  A program's
# --help prints it; sap-run(1) must document the same options, no more
# and no fewer, in its SYNOPSIS and in its list of options; and a program
# must accept each of them.  Adding an option to one place and not the
# others fails here.  Also: the manual pages are mandoc -Tlint clean (when
# mandoc is installed), but for cross references to each other, which
# mandoc looks up among the installed pages.  sap(7) names the one-word
# options, which a param cannot be called, and sapc rejects such a param
# from the same list.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

def=$top_srcdir/runtime/core/options.def
page=$top_srcdir/man/sap-run.1

sed -n 's/^SAP_OPTION("\([a-z-]*\)".*/\1/p' "$def" >"$tmp/def"
test "$(wc -l <"$tmp/def")" -ge 10 || fail "read only $(wc -l <"$tmp/def") options from $def"

cat >"$tmp/p.sap" <<'SAP'
/// A parameter, which --help lists before the options.
param int n = 10;
dvector<double> w(n);
async for (long i = 0; i < n; i++)
    w[i] += i;
print("ok %g\n", w[n - 1]);
SAP
cd "$tmp" || exit 1
"$SAPC" -o p p.sap || fail "sapc p.sap"

# --help: the lines after "Options:", in order.
./p --help >help.txt || fail "--help exited $?"
sed -n '/^Options:/,$p' help.txt | sed -n 's/^  --\([a-z-]*\).*/\1/p' >help
diff def help >diff.txt || { cat diff.txt; fail "--help and options.def differ (< options.def, > --help)"; }

# sap-run(1): every option the SYNOPSIS names ...
sed -n '/^\.Sh SYNOPSIS/,/^\.Sh /p' "$page" | tr ' ' '\n' | grep '^-[a-z]' |
	sed 's/^-//' | sort -u >synopsis
sort def >def.sorted
diff def.sorted synopsis >diff.txt ||
	{ cat diff.txt; fail "the SYNOPSIS of sap-run(1) and options.def differ (< options.def)"; }
# ... and the list of options in the DESCRIPTION, in options.def's order
# (the parameters' entries, "--name=value" and "--[no-]name", aside).
sed -n '/^\.Sh DESCRIPTION/,/^\.Sh /p' "$page" |
	sed -n 's/^\.It Fl -\([a-z][a-z-]*[a-z]\)\( Ns = Ns .*\)\{0,1\}$/\1/p' >listed
sed -n '/^\.Sh DESCRIPTION/,/^\.Sh /p' "$page" | grep -q '^\.It Fl -seed' ||
	fail "sap-run(1) lists no --seed: the pattern above is stale"
grep -v '^help$\|^version$' def >def.body
grep -v '^help$\|^version$' listed >listed.body
diff def.body listed.body >diff.txt ||
	{ cat diff.txt; fail "the options sap-run(1) lists and options.def differ (< options.def)"; }
for o in help version; do
	grep -q "^$o\$" listed || fail "sap-run(1) lists no --$o"
done

# sap(7) names the options a param cannot be called: those that are one
# word (a param's name is an identifier).
sed -n '/^A param cannot be called$/,/^which are options of every program$/p' \
	"$top_srcdir/man/sap.7" | sed -n 's/^\.Cm \([a-z]*\).*/\1/p' | sort >named
grep -v -- - def | sort >words
diff words named >diff.txt ||
	{ cat diff.txt; fail "sap(7)'s options a param cannot be called and options.def differ (< options.def)"; }
# ... and sapc rejects such a param.
printf 'param int version = 1;\nprint("%%d\\n", version);\n' >v.sap
"$SAPC" -fsyntax-only v.sap 2>err.txt && fail "sapc took a param called version"
grep -q "'version' cannot be a param: --version is an option of every program" err.txt ||
	{ cat err.txt; fail "the message for a param called version"; }

# Each is accepted (help and version exit at once, with status 0).
./p --dump-order=order.txt >out.txt || fail "--dump-order exited $?"
test -s order.txt || fail "--dump-order wrote nothing"
while read -r o; do
	case $o in
	seed) arg=--seed=3 ;;
	threads) arg=--threads=1 ;;
	dump-order) arg=--dump-order=order2.txt ;;
	run-order) arg=--run-order=order.txt ;;
	checkpoint-dir) arg=--checkpoint-dir=ck ;;
	checkpoint-every) arg="--checkpoint-every=1 --checkpoint-dir=ck" ;;
	checkpoint-seconds) arg="--checkpoint-seconds=0.5 --checkpoint-dir=ck" ;;
	resume) arg="--resume --checkpoint-dir=ck" ;;
	*) arg=--$o ;;
	esac
	# shellcheck disable=SC2086 # some take two words
	./p $arg >out.txt 2>err.txt </dev/null || { cat err.txt; fail "$arg exited $?"; }
	case $o in
	help) grep -q '^Usage: p ' out.txt || fail "--help printed no usage" ;;
	version) grep -q '^p (sapc [0-9][0-9.]*)$' out.txt || fail "--version printed: $(cat out.txt)" ;;
	*) grep -qx 'ok 9' out.txt || fail "$arg: the program printed $(cat out.txt)" ;;
	esac
done <def

if command -v mandoc >/dev/null 2>&1; then
	mandoc -Tlint "$top_srcdir"/man/*.1 "$top_srcdir"/man/*.7 2>&1 |
		grep -v 'mandoc\.db\|referenced manual not found: Xr \(sapc 1\|sap 7\|sap-run 1\)' >lint.txt
	test -s lint.txt && { cat lint.txt; fail "mandoc -Tlint"; }
else
	echo "mandoc not installed: the pages were not linted"
fi
exit 0
