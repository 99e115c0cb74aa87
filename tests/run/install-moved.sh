#!/bin/sh
# An installed sapc finds its header, library and prelude relative to its
# own location: staged under DESTDIR, then moved to another directory
# altogether, it still compiles a program that runs, with the moved
# tree's files (sapc -v shows them) and never the configured prefix's.
#
# Run by `make check` with SAPC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

${MAKE:-make} -C "$top_builddir" install DESTDIR="$tmp/stage" >"$tmp/install.log" 2>&1 ||
	{ tail -20 "$tmp/install.log"; fail "make install DESTDIR=... failed"; }
prefix=$(sed -n 's/^prefix=//p' "$top_builddir/sap.pc")
test -x "$tmp/stage$prefix/bin/sapc" || fail "no sapc under $tmp/stage$prefix/bin"

cat >"$tmp/p.sap" <<'SAP'
param long n = 100;
dvector<double> w(n);
async for (long i = 0; i < n; i++)
    w[i] = sqrt(double(i));
print("%.6f\n", w[n - 1]);
SAP
for where in staged moved; do
	if test $where = moved; then
		mv "$tmp/stage$prefix" "$tmp/moved" || fail "mv"
		root=$tmp/moved
	else
		root=$tmp/stage$prefix
	fi
	env -u SAPC_STDLIB "$root/bin/sapc" -v -o "$tmp/p" "$tmp/p.sap" >"$tmp/v.txt" 2>&1 ||
		{ cat "$tmp/v.txt"; fail "$where sapc could not compile"; }
	grep -q -- "-I'$root/include'" "$tmp/v.txt" ||
		{ cat "$tmp/v.txt"; fail "$where sapc did not use its own include directory"; }
	grep -q -- "-L$root/lib -lsap" "$tmp/v.txt" ||
		{ cat "$tmp/v.txt"; fail "$where sapc did not link its own libsap"; }
	out=$("$tmp/p" --threads=1) || fail "$where program exited $?"
	test "$out" = "9.949874" || fail "$where program printed '$out'"
	# sqrt is declared in the prelude, std.sap: the moved one was found.
done
exit 0
