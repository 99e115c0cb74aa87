#!/bin/sh
# --check-plan audits the keys of maps as of dvectors: a loop over a
# map's keys that reads the map at other keys (int and string keys) runs
# planned under the audit on 1 x 2 and 2 x 2 with the results of its
# --dump-order replay; and with the record of one key taken out of the
# generated slice, the audited run stops naming the map and the key that
# the reconnaissance missed, where an unaudited run would just race.
set -u
: "${SAPC:?must be set}" "${MPIEXEC:?must be set}" "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
make_tmp
cd "$tmp" || exit 1

cat >m.sap <<'SAP'
dmap<long, long> val;
dmap<long, long> nxt;
dmap<string, long> sv;
dmap<string, string> sn;
list<string> ws = tokens("ab cd ef gh ij kl mn op qr st uv");
for (long i = 0; i < 300; i++) {
    val[i * 3] = i;
    nxt[i * 3] = i * 7 % 300 * 3;
}
for (long k = 0; k < 11; k++) {
    sv[ws[k]] = k;
    sn[ws[k]] = ws[k * 4 % 11];
}
async for (long k : val)
    val[k] = val[nxt[k]] % 1000 + val[k];
async for (string k : sv)
    sv[k] = sv[sn[k]] + sv[k] * 2;
long s = 0;
for (long i = 0; i < 300; i++)
    s += val[i * 3] * i;
long t = 0;
for (long k = 0; k < 11; k++)
    t += sv[ws[k]] * k;
print("%d %d\n", s, t);
SAP
"$SAPC" -O1 -o m m.sap || fail "sapc m.sap"
for run in "-n 1 ./m --threads=2" "-n 2 ./m --threads=2"; do
	# shellcheck disable=SC2086
	$MPIEXEC $run --check-plan --stats --dump-order=order >out 2>err ||
		{ cat err; fail "$run --check-plan"; }
	grep -q 'm.sap:14 .* planned' err || { cat err; fail "$run: loop 1 not planned"; }
	grep -q 'm.sap:16 .* planned' err || { cat err; fail "$run: loop 2 not planned"; }
	$MPIEXEC -n 1 ./m --run-order=order >replay 2>err || { cat err; fail "$run: the replay"; }
	cmp -s out replay || fail "$run: '$(cat out)', its replay '$(cat replay)'"
done

# The slice without its record of val[nxt[k]], then of sv[sn[k]].
"$SAPC" -S -P -o m.c m.sap || fail "sapc -S -P"
grep -c 'sap_rec_key(rec, 1, .*sap_dm_get' m.c | grep -q '^2$' ||
	fail "not the two records of keys read from nxt and sn in the slices"
n=0
for map in val sv; do
	n=$((n + 1))
	awk -v n=$n '/sap_rec_key\(rec, 1, .*sap_dm_get/ && ++seen == n { next } { print }' m.c >bad.c
	# shellcheck disable=SC2046
	mpicc -std=c11 $("$SAPC" --showme:compile) bad.c $("$SAPC" --showme:link) -o bad ||
		fail "compiling the C without a record"
	$MPIEXEC -n 1 ./bad --threads=2 >/dev/null 2>err || { cat err; fail "$map: the unaudited run"; }
	$MPIEXEC -n 1 ./bad --threads=2 --check-plan >/dev/null 2>err &&
		fail "$map: the audit let a key the slice did not record pass"
	case $map in
	val) want="reads val\[[0-9]*\], which its reconnaissance did not record" ;;
	sv) want="reads sv\[\"[a-z][a-z]\"\], which its reconnaissance did not record" ;;
	esac
	grep -q "m.sap:1[57]:[0-9]*: error: --check-plan: iteration [0-9]* of loop $n $want" err ||
		{ cat err; fail "$map: not the audit's message"; }
done
exit 0
