#!/bin/sh
# samples/lda.sap (collapsed Gibbs sampling with relaxed(+: nk)) and its
# serial twin samples/baselines/lda.c on a small corpus with planted
# topics (tools/genlda):
#  - on 1 rank x 1 thread the two sample the same topics bit for bit: the
#    same report (log-likelihoods to 12 decimals, tokens per topic) and
#    byte-identical word-topic counts;
#  - on 1 x 2, 2 x 1, 2 x 2 and 3 x 1 each configuration gives the same
#    report and counts on two runs (relaxed reads are deterministic for a
#    given ranks x threads);
#  - on every configuration no count is lost: the word-topic counts
#    hold each token once under its word (row sums are the corpus's word
#    frequencies) and their column sums are the tokens per topic the
#    program reports, which sum to the token count;
#  - the final log-likelihood per token is within the twin's own
#    seed-to-seed spread of the twins' mean: five seeds of the exact
#    sampler on the same corpus give how far its result moves with the
#    random numbers alone, and a parallel run, a different but equally
#    valid chain whose reads of nk are stale by at most one round, must
#    land as close.
# Both are built at -O2 with no -march flags (no FMA to contract into).
#
# Run by `make check` with SAPC, MPIEXEC, top_srcdir and top_builddir set.
# Exit status: 0 pass, 1 fail, 77 skip.

: "${top_srcdir:?must be set}" "${top_builddir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

"$top_builddir/tools/genlda" --docs=200 --vocab=1000 --topics=20 --length=80 \
	--seed=5 --out="$tmp/tok.txt" 2>/dev/null || fail "genlda"
ntok=$(grep -c -v '^#' "$tmp/tok.txt")

"$SAPC" -O2 -o "$tmp/lda" "$top_srcdir/samples/lda.sap" ||
	fail "sapc could not compile samples/lda.sap"
${CC:-cc} -std=c11 -O2 -ffp-contract=off -fwrapv -o "$tmp/lda-c" \
	"$top_srcdir/samples/baselines/lda.c" -lm ||
	fail "could not compile samples/baselines/lda.c"

sweeps=100
set -- --data="$tmp/tok.txt" --sweeps=$sweeps --every=20
# report FILE: the program's report without its timing.
report() {
	grep -v '^tokens/s ' "$1"
}

# check_counts OUT NWK WHAT: the counts are whole (see above).
check_counts() {
	awk -v ntok="$ntok" -v what="$3" '
		FNR == 1 { f++ }
		f == 1 && !/^#/ { freq[$2]++ }
		f == 2 && /^tokens per topic:/ {
			for (i = 4; i <= NF; i++) { nk[i - 4] = $i; tot += $i }
			k = NF - 3
		}
		f == 3 {
			w = FNR - 1; s = 0
			for (i = 1; i <= NF; i++) { s += $i; col[i - 1] += $i }
			if (s != freq[w] + 0) {
				print what ": word " w " has " s " tokens in nwk, " freq[w] + 0 " in the corpus"
				bad = 1
			}
		}
		END {
			if (tot != ntok) { print what ": tokens per topic sum to " tot ", want " ntok; bad = 1 }
			for (j = 0; j < k; j++)
				if (col[j] != nk[j]) {
					print what ": topic " j ": " col[j] " in nwk, " nk[j] " reported"
					bad = 1
				}
			exit bad
		}' "$tmp/tok.txt" "$1" "$2" || fail "$3: the counts are not whole"
}

# The twin on five seeds: seed 1 for the bit-for-bit check, all for the spread.
for seed in 1 2 3 4 5; do
	"$tmp/lda-c" "$@" --seed=$seed --out="$tmp/nwk-c$seed.txt" >"$tmp/out-c$seed.txt" ||
		fail "the C twin failed (seed $seed)"
	grep "^sweep $sweeps loglik/token " "$tmp/out-c$seed.txt" | cut -d ' ' -f 4 >>"$tmp/lls"
done
test "$(grep -c '^sweep [0-9]* loglik/token -[0-9.]*$' "$tmp/out-c1.txt")" = 5 ||
	fail "the C twin printed an unexpected report"
check_counts "$tmp/out-c1.txt" "$tmp/nwk-c1.txt" "the C twin"
read -r mean spread <<EOF
$(awk 'NR == 1 || $1 < lo { lo = $1 } NR == 1 || $1 > hi { hi = $1 } { s += $1 }
	END { printf "%.12f %.12f\n", s / NR, hi - lo }' "$tmp/lls")
EOF

# $MPIEXEC unquoted: it may carry its own options.
$MPIEXEC -n 1 "$tmp/lda" "$@" --seed=1 --threads=1 --out="$tmp/nwk-1x1.txt" \
	>"$tmp/out-1x1.txt" || fail "the SAP program failed on 1 x 1"
report "$tmp/out-c1.txt" >"$tmp/a"
report "$tmp/out-1x1.txt" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" ||
	{ diff "$tmp/a" "$tmp/b"; fail "1 x 1: the reports differ from the twin's (< twin, > SAP)"; }
cmp -s "$tmp/nwk-c1.txt" "$tmp/nwk-1x1.txt" || fail "1 x 1: the word-topic counts differ from the twin's"

status=0
for cfg in 1x2 2x1 2x2 3x1; do
	np=${cfg%x*} nt=${cfg#*x}
	for run in 1 2; do
		$MPIEXEC -n "$np" "$tmp/lda" "$@" --seed=1 --threads="$nt" \
			--out="$tmp/nwk-$cfg-$run.txt" >"$tmp/out-$cfg-$run.txt" ||
			fail "the SAP program failed on $np x $nt"
	done
	report "$tmp/out-$cfg-1.txt" >"$tmp/a"
	report "$tmp/out-$cfg-2.txt" >"$tmp/b"
	if ! cmp -s "$tmp/a" "$tmp/b" || ! cmp -s "$tmp/nwk-$cfg-1.txt" "$tmp/nwk-$cfg-2.txt"; then
		diff "$tmp/a" "$tmp/b"
		echo "FAIL: $np x $nt: two runs differ"
		status=1
	fi
	check_counts "$tmp/out-$cfg-1.txt" "$tmp/nwk-$cfg-1.txt" "$np x $nt"
	ll=$(grep "^sweep $sweeps loglik/token " "$tmp/out-$cfg-1.txt" | cut -d ' ' -f 4)
	test -n "$ll" || fail "$np x $nt: no final log-likelihood"
	if ! awk -v a="$ll" -v m="$mean" -v s="$spread" \
		'BEGIN { d = a - m; if (d < 0) d = -d; exit !(d <= s) }'; then
		echo "FAIL: $np x $nt: final log-likelihood $ll is further than the twin's" \
			"seed-to-seed spread $spread from the twins' mean $mean"
		status=1
	fi
	echo "$np x $nt: log-likelihood/token $ll (twins: mean $mean, spread $spread)"
done
test $status = 0 && echo "PASS: 1 x 1 is the twin bit for bit; 1x2 2x1 2x2 3x1 deterministic," \
	"counts whole, log-likelihood within the twin's seed spread"
exit $status
