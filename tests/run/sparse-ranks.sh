#!/bin/sh
# sync for's sparse path (recon = on): before each step the ranks fetch
# the rows the reconnaissance slice records from their owners, after it
# they send their changes to the owners.
#  - keys from the element, through a read-only vector, drawn at random
#    (the slice draws the same numbers as the body), under a condition
#    the slice evaluates: a histogram merged by sum comes out exactly the
#    same on 1, 2 and 3 ranks x 1 and 2 threads, with recon on and off,
#    over two invocations (the second starts from rows the owners hold);
#  - a vector whose key depends on one the loop writes takes the dense
#    path in the same loop, and its total is exact too;
#  - averaged integers (changes of both signs) are the same on both paths;
#  - an averaged vector, read at some rows and written at others, agrees
#    with the dense path's to rounding, and is the same on two runs for
#    given ranks x threads;
#  - a step that writes most of the rows (one rank merges such steps
#    whole) gives the same bits on 1 x 2 as on 2 x 1, on 1 x 3 as on
#    3 x 1, summed on either path and averaged on the sparse one;
#  - hybrid over ranks takes the sparse path as well;
#  - on several ranks the sparse path moves a small part of the whole
#    vectors (--stats sync_MB), and so does the dense path, which finds the
#    rows each step changed; rows_sent counts them.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

for recon in on off; do
	sed "s/@RECON@/$recon/" >"$tmp/hist-$recon.sap" <<'SAP'
const long N = 50000;
struct Ex {
    long a;
    long b;
    float v;
}
dvector<Ex> E(6000);
async for (long i = 0; i < len(E); i++) {
    E[i].a = rand_int(N);
    E[i].b = rand_int(N);
    E[i].v = rand();
}
dvector<long> P(N);
async for (long k = 0; k < N; k++)
    P[k] = (k * 7919) % N;
dvector<long> C(N);
dvector<long> H(16);
dvector<double[2]> W(N);
dvector<long> G(N);
for (int ep = 0; ep < 2; ep++) {
    sync for (Ex e : E) with (bsp, batch = 64, recon = @RECON@, merge(C) = sum, merge(H) = sum) {
        C[e.a] += 1;
        C[P[e.b]] += 2;
        long r = rand_int(N);
        C[r] += 4;
        if (e.v > 0.5)
            C[(e.a + 1) % N] += 8;
        H[C[e.a] % 16] += 1;
        W[e.b][0] += e.v + 0.001 * W[e.a][1];
        W[e.b][1] += 1;
    }
    sync for (Ex e : E) with (bsp, batch = 64, recon = @RECON@) {
        G[e.a % 4] += 1;
        G[e.b % 4] -= 1;
    }
}
long cs = 0;
long ct = 0;
long ht = 0;
double w0 = 0;
double w1 = 0;
long gs = 0;
async for (long k = 0; k < N; k++) reduce(+: cs, ct, w0, w1, gs) {
    gs += G[k] * (k % 101);
    cs += C[k] * (k % 1009);
    ct += C[k];
    w0 += W[k][0];
    w1 += W[k][1];
}
for (int k = 0; k < 16; k++)
    ht += H[k];
print("C %d %d H %d C[17] %d\n", ct, cs, ht, C[17]);
print("W %.17g %.17g\n", w0, w1);
print("G %d %d %d %d %d\n", gs, G[0], G[1], G[2], G[3]);
SAP
	"$SAPC" -O2 -o "$tmp/hist-$recon" "$tmp/hist-$recon.sap" || fail "sapc hist-$recon.sap"
done

for recon in on off; do
	sed "s/@RECON@/$recon/" >"$tmp/wide-$recon.sap" <<'SAP'
dvector<long> E(4000);
async for (long i = 0; i < len(E); i++)
    E[i] = rand_int(1000000);
dvector<float> S(300);
dvector<double> A(300);
for (int ep = 0; ep < 3; ep++)
    sync for (long e : E) with (bsp, batch = 50, recon = @RECON@, merge(S) = sum) {
        for (int k = 0; k < 8; k++) {
            long r = (e / (k + 1)) % 300;
            S[r] += 0.1 * (k + 1) - 0.05 * S[(r + 1) % 300];
            A[r] += 1.0 / (k + 3) - 0.01 * A[r];
        }
        S[e % 300] = -0.0;
    }
double s = 0;
double a = 0;
for (int k = 0; k < 300; k++) {
    s += S[k] * (k + 1);
    a += A[k] * (k + 1);
}
print("wide %.17g %.17g\n", s, a);
SAP
	"$SAPC" -O2 -o "$tmp/wide-$recon" "$tmp/wide-$recon.sap" || fail "sapc wide-$recon.sap"
done
for l in "1 2 2 1" "1 3 3 1"; do
	set -- $l
	for recon in on off; do
		for x in "$1 $2" "$3 $4"; do
			set -- $x "$@"
			$MPIEXEC --bind-to none -n "$1" "$tmp/wide-$recon" --threads="$2" >"$tmp/wide.$1.$2.$recon" \
				2>"$tmp/wide.$1.$2.$recon.err" ||
				{ cat "$tmp/wide.$1.$2.$recon" "$tmp/wide.$1.$2.$recon.err"; fail "wide recon=$recon on $1 x $2"; }
			shift 2
		done
		cmp "$tmp/wide.$1.$2.$recon" "$tmp/wide.$3.$4.$recon" ||
			fail "wide recon=$recon: $1 x $2 and $3 x $4 differ"
	done
	# A sum is the same on both paths.
	test "$(cut -d' ' -f2 "$tmp/wide.$1.$2.on")" = "$(cut -d' ' -f2 "$tmp/wide.$1.$2.off")" ||
		{ cat "$tmp/wide.$1.$2.on" "$tmp/wide.$1.$2.off"; fail "wide on $1 x $2: S differs between the paths"; }
done

cat >"$tmp/hyb.sap" <<'SAP'
dvector<long> D(3000);
async for (long i = 0; i < len(D); i++)
    D[i] = (i * 37) % 3000;
dvector<long> C(3000);
sync for (long x : D) with (hybrid, batch = 25, merge(C) = sum) {
    C[x] += 1;
    C[(x + 1) % 3000] += 2;
}
long t = 0;
long s = 0;
async for (long k = 0; k < len(C); k++) reduce(+: t, s) {
    t += C[k];
    s += C[k] * k;
}
print("hybrid %d %d\n", t, s);
SAP
"$SAPC" -O2 -o "$tmp/hyb" "$tmp/hyb.sap" || fail "sapc hyb.sap"

"$SAPC" --explain "$tmp/hist-on.sap" >"$tmp/explain" || fail "sapc --explain"
grep -q '^    C            sum, sparse:' "$tmp/explain" || { cat "$tmp/explain"; fail "C not sparse"; }
grep -q '^    W            avg (.*), sparse:' "$tmp/explain" || { cat "$tmp/explain"; fail "W not sparse"; }
grep -q '^    H            sum, dense (the key of H\[C\[e.a\] % 16\] is not known before each step runs: it reads C, which this loop writes' \
	"$tmp/explain" || { cat "$tmp/explain"; fail "H not dense"; }

# The sync table's sync_MB and rows_sent on rank 0, from --stats on stderr
# (rank 0 prints every rank's table; kept apart from the results on
# stdout, which mpiexec forwards on its own and could splice into them).
moved() {
	awk '/^sap stats: parallel loops on rank 0/ { r0 = 1 } /^sap stats: parallel loops on rank [1-9]/ { r0 = 0 }
	     r0 && $1 == 3 && $4 == "bsp" { print $9, $14, $6 }' "$1.err"
}

want=
for np in 1 2 3; do
	for nt in 1 2; do
		for recon in on off; do
			out="$tmp/hist.$np.$nt.$recon"
			$MPIEXEC --bind-to none -n "$np" "$tmp/hist-$recon" --threads="$nt" --stats >"$out" 2>"$out.err" ||
				{ cat "$out" "$out.err"; fail "hist recon=$recon on $np ranks x $nt threads"; }
			c=$(grep '^C ' "$out")
			test -n "$c" || { cat "$out" "$out.err"; fail "hist recon=$recon on $np x $nt: no result"; }
			if test -z "$want"; then
				want=$c
				case $want in
				*" H 12000 "*) ;;
				*) fail "hist: H's total is not 12000: $want" ;;
				esac
			fi
			test "$c" = "$want" ||
				fail "hist recon=$recon on $np ranks x $nt threads: '$c', want '$want'"
		done
		# Averaged integers are the same on both paths.
		test "$(grep '^G ' "$tmp/hist.$np.$nt.on")" = "$(grep '^G ' "$tmp/hist.$np.$nt.off")" ||
			{ grep '^G ' "$tmp/hist.$np.$nt.on" "$tmp/hist.$np.$nt.off"; fail "G differs on $np x $nt"; }
		# Averaged rows agree to rounding between the paths.
		awk '/^W / { if (!n++) { a = $2; b = $3 } else { c = $2; d = $3 } }
		     END { da = a - c; db = b - d; if (da < 0) da = -da; if (db < 0) db = -db;
		           exit !(n == 2 && da < 1e-9 * (a < 0 ? -a : a) + 1e-12 && db < 1e-9 * b) }' \
			"$tmp/hist.$np.$nt.on" "$tmp/hist.$np.$nt.off" ||
			{ grep '^W' "$tmp/hist.$np.$nt.on" "$tmp/hist.$np.$nt.off"; fail "W differs on $np x $nt"; }
	done
done
# C's total: 6000 elements, 2 epochs, 1 + 2 + 4 each and 8 for about half.
awk -v c="$want" 'BEGIN { split(c, f, " "); t = f[2]; exit !(t > 2 * 6000 * 7 + 2 * 2500 * 8 && t < 2 * 6000 * 7 + 2 * 3500 * 8) }' ||
	fail "hist: C total out of range: $want"

# The same on two runs.
$MPIEXEC --bind-to none -n 2 "$tmp/hist-on" --threads=2 >"$tmp/again" 2>"$tmp/again.err" ||
	{ cat "$tmp/again.err"; fail "hist again"; }
grep '^W ' "$tmp/hist.2.2.on" >"$tmp/w1"
grep '^W ' "$tmp/again" >"$tmp/w2"
cmp "$tmp/w1" "$tmp/w2" || fail "hist on 2 x 2: two runs differ"

# Traffic: the sparse path moves rows, and so does the dense path, which
# finds the rows each step changed: both a small part of the whole C and W
# (1.2 MB) that the chain would move twice a step.
for np in 2 3; do
	set -- $(moved "$tmp/hist.$np.1.on") $(moved "$tmp/hist.$np.1.off")
	test $# -eq 6 || { cat "$tmp/hist.$np.1.on.err"; fail "no sync row in --stats on $np ranks"; }
	awk -v s="$1" -v r="$2" -v d="$4" -v rd="$5" -v steps="$6" \
		'BEGIN { whole = steps * 2 * 1.2; exit !(s > 0 && r > 0 && rd > 0 && s * 10 < whole && d * 10 < whole) }' ||
		fail "on $np ranks: sparse moved $1 MB in $2 rows, dense $4 MB ($5 rows) in $6 steps"
done

# One thread a rank: a rank's threads under hybrid add to C as Hogwild's
# do and may lose an addition (sap(7)), so their sums need not be exact.
for np in 1 2 3; do
	$MPIEXEC --bind-to none -n "$np" "$tmp/hyb" --threads=1 --stats >"$tmp/hyb.$np" 2>"$tmp/hyb.$np.err" ||
		{ cat "$tmp/hyb.$np" "$tmp/hyb.$np.err"; fail "hybrid on $np ranks"; }
	grep -qx 'hybrid 9000 13495500' "$tmp/hyb.$np" ||
		{ cat "$tmp/hyb.$np"; fail "hybrid on $np ranks: want 9000 13495500"; }
done
exit 0
