#!/bin/sh
# Elements holding strings or lists are held like others: a load keeps
# each line on the rank that parsed it, a loop's writes stay on the rank
# that made them, and what needs them elsewhere (here driver code) gets
# them through the codec the compiler generates for their type.
#  - on 1, 2 and 3 ranks (and 2 over TCP) the output and the saved file
#    are identical;
#  - the loop writing strings and lists at its own index, and the loop
#    reading them, run where the elements are ("chunks (owner
#    computes)", P workers of one thread) and send nothing;
#  - each rank holds about 1/P of D and of L (plus 2-byte holder maps).
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp

cat >"$tmp/docs.sap" <<'SAP'
struct Doc {
    int id;
    string title;
    list<string> words;
}
param string data = "docs.txt";
param string out = "out.txt";
dvector<Doc> D = load(data);
dvector<string> S(len(D));
dvector<list<long>> L(len(D));
async for (long i = 0; i < len(D); i++) {
    S[i] = D[i].title + "/";
    if (len(D[i].words) > 0)
        S[i] = S[i] + D[i].words[0];
    list<long> l;
    for (long k = 0; k < len(D[i].words); k++)
        push(l, len(D[i].words[k]) * (i % 7 + 1));
    L[i] = l;
}
long total = 0;
long chars = 0;
async for (long i = 0; i < len(D); i++) reduce(+: total, chars) {
    for (long k = 0; k < len(L[i]); k++)
        total += L[i][k];
    chars += len(S[i]);
}
print("%d docs, total %d, chars %d\n", len(D), total, chars);
print("%s %s %s\n", S[0], S[len(S) / 2], S[len(S) - 1]);
save(D, out);
SAP
"$SAPC" -O2 -o "$tmp/docs" "$tmp/docs.sap" || fail "sapc docs.sap"

# 20000 documents of 0-8 words, some with none.
awk 'BEGIN {
	split("the cat sat on a mat quick brown fox jumps over lazy dog", w, " ")
	s = 7
	for (i = 0; i < 20000; i++) {
		s = (s * 1103515245 + 12345) % 2147483648
		n = s % 9
		line = i " t" (s % 1000)
		for (k = 0; k < n; k++) {
			s = (s * 1103515245 + 12345) % 2147483648
			line = line " " w[1 + s % 13]
		}
		print line
	}
}' >"$tmp/docs.txt" || fail "awk"

for np in 1 2 3 tcp; do
	case $np in
	tcp) run="$MPIEXEC --mca btl tcp,self -n 2" P=2 ;;
	*) run="$MPIEXEC -n $np" P=$np ;;
	esac
	$run "$tmp/docs" --threads=1 --data="$tmp/docs.txt" --out="$tmp/$np.txt" --stats \
		>"$tmp/$np.out" 2>"$tmp/$np.err" ||
		{ cat "$tmp/$np.err"; fail "$np ranks: exit status $?"; }
	test "$np" = 1 && continue
	cmp "$tmp/1.out" "$tmp/$np.out" ||
		{ diff "$tmp/1.out" "$tmp/$np.out"; fail "output on $np ranks differs from 1 rank's"; }
	cmp "$tmp/1.txt" "$tmp/$np.txt" || fail "saved D on $np ranks differs from 1 rank's"
	awk -v P="$P" '($1 == 1 || $1 == 2) && $2 ~ /docs.sap:/ {
		n++; if ($10 != P || $13 != "0.00" || $0 !~ /chunks \(owner computes\)$/) bad = 1 }
		END { exit bad || n != 2 * P }' "$tmp/$np.err" ||
		{ cat "$tmp/$np.err"; fail "loops on $np ranks: not where the elements are"; }
	# dvector NAME: N x S B = ..., on this rank E MB at the end, ...
	awk -v P="$P" '$1 == "dvector" && ($2 == "D:" || $2 == "L:") {
		n++; share = $3 * $5 / P / 1e6; hold = 2 * $3 / 1e6
		if ($13 > share * 1.05 + hold + 0.02) bad = 1 }
		END { exit bad || n != 2 * P }' "$tmp/$np.err" ||
		{ cat "$tmp/$np.err"; fail "D or L on $np ranks: more than 1/P on a rank"; }
done
grep -q '^20000 docs, total [0-9]*, chars [0-9]*$' "$tmp/1.out" ||
	{ cat "$tmp/1.out"; fail "no result line"; }
cmp "$tmp/docs.txt" "$tmp/1.txt" || fail "save(D) differs from the file loaded"
exit 0
