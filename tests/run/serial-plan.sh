#!/bin/sh
# A plan that keeps about one worker busy at a time (balance above 0.8
# times the workers) runs in index order on one worker instead, over
# ranks on every rank: each iteration of a sparse SGD writes 8 weights of
# 4000, drawn log-uniformly (weight k about as often as 1 / k), so that
# 59% of them write w[1]: balance 1.8 on 2 workers (1.7 when its blocks
# were weighed by every access, not each key once an iteration).
# Run in the plan's order it cost the serial loop's time (on 2 ranks more,
# an exchange after each of its rounds) and gave another result.  Now
# 1 x 2 and 2 x 1 print the serial loop's bits, sums of floating-point
# losses included, and warn once; on 3 workers the plan (balance 1.9)
# runs, 3 x 1 as 1 x 3.
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/p.sap" <<'SAP'
param long n = 20000;
param int d = 4000;
param int epochs = 3;
dvector<double> w(d);
dvector<long> key(n * 8);
async for (long i = 0; i < n * 8; i++)
    key[i] = long(pow(double(d), double(i * 2654435761 % 1000003) / 1000003.0));
for (int ep = 0; ep < epochs; ep++) {
    double loss = 0;
    async for (long i = 0; i < n; i++) reduce(+: loss) {
        double z = 0;
        for (int k = 0; k < 8; k++)
            z += w[key[i * 8 + k]] * 0.5;
        double g = 0.01 * (z - i % 3);
        loss += g * g;
        for (int k = 0; k < 8; k++)
            w[key[i * 8 + k]] -= g * 0.5;
    }
    print("%d %.17g\n", ep, loss);
}
double s = 0;
for (long j = 0; j < d; j++)
    s += w[j] * w[j];
print("%.17g\n", s);
SAP
"$SAPC" -O2 -o "$tmp/p" "$tmp/p.sap" || fail "sapc"

# verdict FILE: the --stats verdict of the loop at p.sap:10.
verdict() {
	awk '$2 ~ "p.sap:10$" { for (i = 17; i <= NF; i++) printf "%s%s", (i > 17 ? " " : ""), $i; exit }' "$1"
}

$MPIEXEC -n 1 "$tmp/p" --threads=1 >"$tmp/serial" || fail "1 x 1"
serial='index-order: its plan keeps one worker busy at a time'
for pt in 1x2 2x1; do
	np=${pt%x*} t=${pt#*x}
	$MPIEXEC -n "$np" "$tmp/p" --threads="$t" --stats >"$tmp/out" 2>"$tmp/err" ||
		{ cat "$tmp/err"; fail "$pt"; }
	cmp "$tmp/serial" "$tmp/out" || fail "$pt prints other sums than the serial loop"
	want=$serial
	[ "$np" = 1 ] || want="$want, on every rank: as one worker runs them"
	v=$(verdict "$tmp/err")
	[ "$v" = "$want" ] || { cat "$tmp/err"; fail "$pt: the loop at p.sap:10 ran as '$v'"; }
	n=$(grep -c 'p.sap:10:5: warning: async for runs serially on 2 workers (balance 1.8): 59% of its iterations write w\[1\]' "$tmp/err")
	[ "$n" = 1 ] || { cat "$tmp/err"; fail "$pt: $n warnings, not one"; }
done

$MPIEXEC -n 1 "$tmp/p" --threads=3 --stats >"$tmp/one3" 2>"$tmp/err" || fail "1 x 3"
[ "$(verdict "$tmp/err")" = planned ] || { cat "$tmp/err"; fail "1 x 3: not planned"; }
$MPIEXEC -n 3 "$tmp/p" --threads=1 >"$tmp/three" || fail "3 x 1"
cmp "$tmp/one3" "$tmp/three" || fail "3 x 1 prints other sums than 1 x 3"
