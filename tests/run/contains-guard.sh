#!/bin/sh
# A store to a dmap under 'if (contains(m, k))' inserts nothing: the
# slice evaluates the guard (no key comes or goes while the loop runs in
# parallel, which the runtime checks for the keys the slice records), so
# the loop is planned; it used to record m[k] whatever the guard said,
# find a missing key and run every invocation serially.  An insert under
# '!contains' still runs serially, and the results are the serial loop's;
# --check-plan finds nothing to report.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cat >"$tmp/cg.sap" <<'SAP'
param long n = 30000;
param int insert = 0;
dvector<long> ref(n);
async for (long i = 0; i < n; i++) ref[i] = (i * 7919) % (2 * n);
dmap<long, double> m;
dmap<long, double> s;
for (long k = 0; k < 2 * n; k += 2) {
    m[k] = 1;
    s[k] = 1;
}
for (int p = 0; p < 3; p++) {
    async for (long i = 0; i < n; i++) {
        long k = ref[i];
        if (contains(m, k))
            m[k] += double(i % 3 + p);
        else if (insert == 1)
            m[k] = double(i);
    }
    for (long i = 0; i < n; i++) {
        long k = ref[i];
        if (contains(s, k))
            s[k] += double(i % 3 + p);
        else if (insert == 1)
            s[k] = double(i);
    }
}
long bad = 0;
double t = 0;
for (long k = 0; k < 2 * n; k++) {
    if (contains(m, k) != contains(s, k) || get(m, k, -1.0) != get(s, k, -1.0))
        bad++;
    t += get(m, k, 0.0);
}
print("len %ld bad %ld t %.17g\n", len(m), bad, t);
SAP
cd "$tmp" || exit 1
"$SAPC" -O2 -o cg cg.sap || fail "sapc cg.sap"
for l in "1 1" "1 2" "2 1" "1 3" "3 1"; do
	# shellcheck disable=SC2086
	set -- $l
	for ins in 0 1; do
		$MPIEXEC -n "$1" ./cg --threads="$2" --insert=$ins --stats >out 2>err ||
			{ cat err; fail "$1 x $2, insert=$ins"; }
		case $ins in
		0) want="len 30000 bad 0 t 120000" ;;
		*) want="len 45000 bad 0 t 225195000" ;;
		esac
		test "$(cat out)" = "$want" || fail "$1 x $2, insert=$ins printed $(cat out)"
		# On one rank's threads: planned, or serial where it inserts.
		if [ "$1" = 1 ] && [ "$2" -gt 1 ]; then
			v=$(sed -n 's/^ *2 cg.sap:12 .* [0-9.]*  *\([a-z].*\)$/\1/p' err)
			case $ins.$v in
			0.planned*) ;;
			1.planned*|1.serialized*inserts*) ;;
			*) cat err; fail "$1 x $2, insert=$ins: loop 2 ran '$v'" ;;
			esac
		fi
	done
done
# The checker knows contains() asks about keys that do not change: no
# access the reconnaissance should have recorded.
$MPIEXEC -n 1 ./cg --threads=2 --check-plan >out 2>err || { cat err; fail "--check-plan"; }
test "$(cat out)" = "len 30000 bad 0 t 120000" || fail "--check-plan printed $(cat out)"
exit 0
