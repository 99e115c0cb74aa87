#!/bin/sh
# An error in a region of a slice that runs under a condition it cannot
# evaluate drops the region (tests/run/slice-bounds.sap); an error the
# body itself would make still stops every rank with the .sap position,
# whether the slice meets it in such a region (the body then stops at it)
# or outside one, after the slice has left regions by a break, a continue
# or an error.  A key the slice records out of range stops the body too,
# though it indexes recorded keys unchecked when they are all in range.
# On 1, 2 and 3 ranks, with --check-plan.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
: "${MPIEXEC:?must be set}"
make_tmp

cat >"$tmp/t.sap" <<'SAP'
struct Row { list<int> rows; }
struct Item { int k; }
param string mode = "after";
const long N = 200;
dvector<Row> X(N);
dvector<Item> A(N);
dvector<int> w(N);
dvector<int> r(50);
dmap<long, int> E;
for (long j = 0; j < N; j++) {
    for (int k = 0; k < int(j % 3) + 1; k++)
        push(X[j].rows, int((j + k) % 50));
    A[j].k = int(j % 50);
    w[j] = int(j % 4);
    if (j != 150)
        E[j] = int(j % 50);
}
if (mode == "after")
    async for (long j = 0; j < N; j++) {
        w[j] += 1;
        for (int t = 0; t < 4 && w[j] > 100 + t; t++) {
            if (t == 1)
                continue;
            if (t == 2)
                break;
            r[X[j].rows[t + 5]] += 1;
        }
        for (int t = 0; t < 4; t++) {
            if (w[j] < 0)
                r[X[j].rows[t]] += 1;
        }
        if (j == N - 1)
            r[A[j + 1].k] += 1;
    }
if (mode == "taken")
    async for (long j = 0; j < N; j++) {
        w[j] += 1;
        if (w[j] > -1)
            r[A[j + 1].k] += 1;
    }
if (mode == "key")
    async for (long j = 0; j < N; j++) {
        w[j] += 1;
        if (w[j] > -1)
            r[E[j]] += 1;
    }
if (mode == "div")
    async for (long j = 0; j < N; j++) {
        w[j] += 1;
        if (w[j] > -1)
            r[A[j].k / int((j - 77) * (j - 77))] += 1;
    }
if (mode == "over" || mode == "under")
    async for (long j = 0; j < N; j++) {
        w[j] += 1;
        long e = 0;
        if (j == 77)
            e = mode == "over" ? 100 : -100;
        r[A[j].k + e] += 1;
    }
print("not reached\n");
SAP
(cd "$tmp" && "$SAPC" -O1 -Wall -Wextra -Werror -o t t.sap) || fail "sapc t.sap"
# setjmp in a slice makes GCC warn of clobbered and uninitialised
# variables: generated C with regions must stay -Wall -Wextra clean.
for f in tests/run/slice-bounds.sap samples/transe.sap; do
	"$SAPC" -O2 -Wall -Wextra -Werror -c -o "$tmp/w.o" "$top_srcdir/$f" || fail "sapc -Werror $f"
done

# mode|the message, after "t.sap:LINE:COL: error: "
cases='after|33:16: error: index 200 out of range for A (size 200)
taken|39:16: error: index 200 out of range for A (size 200)
key|45:16: error: key 150 not in dmap '"'E'"'; get(E, key, value) reads value where the key is missing
div|51:22: error: integer division by zero
over|59:10: error: index 127 out of range for r (size 50)
under|59:10: error: index -73 out of range for r (size 50)'

echo "$cases" | while IFS='|' read -r mode msg; do
	for np in 1 2 3; do
		(cd "$tmp" && $MPIEXEC -n "$np" ./t --mode="$mode" --check-plan </dev/null >out 2>err)
		rc=$?
		test "$rc" -ne 0 || fail "$mode on $np ranks: exit 0"
		grep -q "^\(\[rank [0-9]\] \)\{0,1\}t\.sap:$msg\$" "$tmp/err" || {
			cat "$tmp/err"
			fail "$mode on $np ranks: no message t.sap:$msg"
		}
		! grep -q "not reached" "$tmp/out" || fail "$mode on $np ranks: went on"
	done || exit 1
done || exit 1
exit 0
