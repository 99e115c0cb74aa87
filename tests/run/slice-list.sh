#!/bin/sh
# A slice that reads a driver list of numbers or flat structs (a tree's
# nodes a helper walks) compares the list's length and bytes as it does a
# number's: the plan stays while the list does, and is made again when a
# driver statement changes an element, pushes one or assigns another list
# of the same length.  Helper FN's boosting pass planned again at every
# invocation.  Over 1 x 2, 2 x 1 and 3 x 1: the serial loop's numbers,
# and reconnaissance at the 4 passes whose list is new, not at the fifth;
# a run resumed from a checkpoint with lists of 3.2 and 4.8 MB.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 1

cat >list.sap <<'SAP'
struct Nd { int to; double w; }
param int n = 3000;
int hop(list<Nd> t, long i) { return t[i % len(t)].to; }
list<Nd> t;
for (int k = 0; k < 7; k++) {
    Nd d;
    d.to = (k * 5) % 11;
    d.w = k;
    push(t, d);
}
list<Nd> u;
dvector<long> y(11);
for (int pass = 0; pass < 5; pass++) {
    if (pass == 1)
        t[2].to = 9;
    if (pass == 2) {
        Nd d;
        d.to = 1;
        d.w = 0;
        push(t, d);
    }
    if (pass == 3) {
        u = t;
        u[3].to = 10;
    }
    if (pass == 4)
        t = u;
    async for (long i = 0; i < n; i++) {
        int k = hop(t, i);
        y[k] = max(y[k], i * (pass + 1) % 1009);
    }
}
long s = 0;
for (int k = 0; k < 11; k++)
    s += y[k] * (k + 1);
print("%d\n", s);
SAP
sed 's/async for/for/' list.sap >serial.sap
"$SAPC" -o list list.sap || fail "sapc list.sap"
"$SAPC" -o serial serial.sap || fail "sapc serial.sap"
want=$(./serial) || fail "serial run"
for l in "1 2" "2 1" "3 1"; do
	# shellcheck disable=SC2086
	set -- $l
	SAP_PLAN_SMALL=1 $MPIEXEC -n "$1" ./list --threads="$2" --stats >out 2>err ||
		{ cat err; fail "$1 x $2: run failed"; }
	test "$(head -n 1 out)" = "$want" || { cat out; fail "$1 x $2: not the serial loop's $want"; }
	recons=$(awk '$2 ~ /^list.sap:2[0-9]$/ { print $4; exit }' out err)
	test "$recons" = 4 || { cat err; fail "$1 x $2: $recons reconnaissance runs, not 4"; }
done
# A checkpoint keeps the list's bytes with the plan, up to the 4 MB the
# plan does (helper U18: 3.2 MB made the resume call the file garbled,
# 4.8 MB wrote a length of -1).
cat >big.sap <<'SAP'
param long big = 400000;
long lg(list<long> L, long i) { return L[(i * 7919) % len(L)] % 11; }
list<long> L;
for (long k = 0; k < big; k++)
    push(L, k % 11);
dvector<long> g(11);
for (int pass = 0; pass < 4; pass++) {
    if (pass == 2)
        L[7919] = 3;
    async for (long i = 0; i < 3000; i++) {
        long h = lg(L, i);
        g[h] = max(g[h], i * (pass + 4) % 1021);
    }
}
long s = 0;
for (int k = 0; k < 11; k++)
    s += g[k] * (k + 5);
print("%d\n", s);
SAP
"$SAPC" -o big big.sap || fail "sapc big.sap"
for b in 400000 600000; do
	rm -rf ck
	$MPIEXEC -n 1 ./big --threads=2 --big=$b --checkpoint-dir=ck --checkpoint-every=1 >first ||
		fail "big=$b: first run"
	$MPIEXEC -n 1 ./big --threads=2 --big=$b --checkpoint-dir=ck --resume >again 2>err ||
		{ cat err; fail "big=$b: resume failed"; }
	cmp -s first again || { cat first again; fail "big=$b: resumed run differs"; }
done
exit 0
