#!/bin/sh
# Damaged checkpoints (sap-run(1), CHECKPOINTS), as SCR and FTI are tested:
# a part deleted, truncated, with one bit flipped in its data or its
# header, its header zeroed, the parts of two ranks swapped, a part of an
# older checkpoint or of another run put in, a newer checkpoint of another
# program, a COMPLETE missing, empty, truncated or garbage.  Each is found before
# use, with a warning that names the file, and --resume falls back to the
# older checkpoint; the run then ends as an uninterrupted one does.  With
# both kept checkpoints damaged, it starts from the beginning.
set -u
: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 99

cat >p.sap <<'SAP'
param int passes = 8;
param string out = "w.txt";
dvector<double> w(2000);
double s = 0;
for (int p = 0; p < passes; p++) {
    async for (long i = 0; i < len(w); i++)
        w[i] += rand() * (i % 7);
    s = 0;
    async for (long i = 0; i < len(w); i++) reduce(+: s) {
        s += w[i];
    }
    print("pass %d sum %.17g\n", p, s);
}
save(w, out);
SAP
"$SAPC" -O2 -o p p.sap || fail "sapc p.sap"
# Another program: its checkpoints are not this one's.
sed 's/i % 7/i % 5/' p.sap >q.sap
"$SAPC" -O2 -o q q.sap || fail "sapc q.sap"

run="$MPIEXEC -n 2"
ck="--checkpoint-dir=ck --checkpoint-every=1"
$run ./p --out=full.txt >full.out 2>full.err </dev/null || { cat full.err; fail "the run failed"; }

# One bit of byte $2 of file $1 flipped.
flip() {
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	# shellcheck disable=SC2059 # the format is the byte
	printf "$(printf '\\%03o' $((b ^ 4)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# Killed (rank 1) after loop 9, with a checkpoint after each loop: the
# two kept are ckpt-8 and ckpt-9.
killed() {
	rm -rf ck w.txt
	SAP_TEST_KILL_AFTER=9:1 $run ./p $ck >p1.out 2>p1.err </dev/null && fail "$1: not killed"
	test -f ck/ckpt-9/COMPLETE && test -f ck/ckpt-8/COMPLETE && ! test -e ck/ckpt-7 ||
		{ ls -R ck; fail "$1: the checkpoints kept are not ckpt-8 and ckpt-9"; }
}

# --resume passes over what $2 matches (if not empty) and resumes from
# checkpoint $3 (0: from the beginning); the result is the full run's.
resumed() {
	$run ./p $ck --resume >p2.out 2>p2.err </dev/null || { cat p2.err; fail "$1: --resume failed"; }
	if test -n "$2"; then
		grep -q "warning: --resume: passing over $2" p2.err ||
			{ cat p2.err; fail "$1: no warning naming $2"; }
	fi
	if test "$3" = 0; then
		grep -q "no complete checkpoint of this program" p2.err ||
			{ cat p2.err; fail "$1: did not start from the beginning"; }
		cmp -s full.out p2.out || fail "$1: the output is not the full run's"
	else
		grep -q "^resuming from checkpoint $3 in 'ck'" p2.err ||
			{ cat p2.err; fail "$1: did not resume from checkpoint $3"; }
		covers full.out p1.out p2.out || { diff full.out p2.out; fail "$1: the output differs"; }
	fi
	cmp -s full.txt w.txt || fail "$1: the saved vector differs"
}

killed "undamaged"
resumed "undamaged" "" 9

killed "part deleted"
rm ck/ckpt-9/part-1
resumed "part deleted" "ck/ckpt-9/part-1: missing or truncated" 8

killed "part truncated"
head -c 100 ck/ckpt-9/part-0 >t && mv t ck/ckpt-9/part-0
resumed "part truncated" "ck/ckpt-9/part-0: truncated" 8

killed "bit flipped in the data"
flip ck/ckpt-9/part-1 $(($(wc -c <ck/ckpt-9/part-1) - 3))
resumed "bit flipped in the data" "ck/ckpt-9/part-1: its data are corrupt (CRC32C)" 8

killed "bit flipped in the header"
flip ck/ckpt-9/part-0 20
resumed "bit flipped in the header" "ck/ckpt-9/part-0: its header is corrupt (CRC32C)" 8

# A header overwritten with zeros was blamed on the version of sapc.
killed "header zeroed"
dd if=/dev/zero of=ck/ckpt-9/part-0 bs=64 count=1 conv=notrunc 2>/dev/null
resumed "header zeroed" "ck/ckpt-9/part-0: not a checkpoint part (it does not start with SAPCKPT): overwritten or corrupt" 8

killed "parts swapped"
mv ck/ckpt-9/part-0 t && mv ck/ckpt-9/part-1 ck/ckpt-9/part-0 && mv t ck/ckpt-9/part-1
resumed "parts swapped" "ck/ckpt-9/part-[01]: the part of another rank or checkpoint" 8

killed "a part of the older checkpoint"
cp ck/ckpt-8/part-1 ck/ckpt-9/part-1
resumed "a part of the older checkpoint" "ck/ckpt-9/part-1: the part of another rank or checkpoint" 8

# The same checkpoint of a run with another seed: a whole part of the right
# rank and number, which only COMPLETE's list of CRCs tells apart.
killed "a part of another run"
rm -rf other
SAP_TEST_KILL_AFTER=9:1 $run ./p --seed=2 --checkpoint-dir=other --checkpoint-every=1 \
	>/dev/null 2>&1 </dev/null
cp other/ckpt-9/part-1 ck/ckpt-9/part-1
resumed "a part of another run" "ck/ckpt-9/part-1: not the part ck/ckpt-9/COMPLETE lists" 8

killed "a newer checkpoint of another program"
rm -rf other
$run ./q --checkpoint-dir=other --checkpoint-every=1 >/dev/null 2>&1 </dev/null ||
	fail "the other program failed"
last=$(ls other | sed -n 's/^ckpt-//p' | sort -n | tail -n 1)
cp -r "other/ckpt-$last" ck/ckpt-10
resumed "a newer checkpoint of another program" \
	"1 newer checkpoint in 'ck' of another program (or of another build of this one)" 9

killed "COMPLETE missing"
rm ck/ckpt-9/COMPLETE
resumed "COMPLETE missing" "" 8

# A COMPLETE that is there but cannot be read as one.
killed "COMPLETE empty"
: >ck/ckpt-9/COMPLETE
resumed "COMPLETE empty" "ck/ckpt-9/COMPLETE: unreadable" 8

killed "COMPLETE truncated"
head -c 20 ck/ckpt-9/COMPLETE >t && mv t ck/ckpt-9/COMPLETE
resumed "COMPLETE truncated" "ck/ckpt-9/COMPLETE: unreadable" 8

killed "COMPLETE garbage"
echo "not a COMPLETE file" >ck/ckpt-9/COMPLETE
resumed "COMPLETE garbage" "ck/ckpt-9/COMPLETE: unreadable" 8

# Names that are not the runtime's: left alone, and the numbers go on
# from the resumed checkpoint's (a number past 2^64 once made them wrap
# to 0).
killed "stray names"
stray="ckpt-99999999999999999999999 ckpt-18446744073709551615 ckpt-+5 ckpt-007 ckpt-"
for s in $stray; do mkdir "ck/$s"; done
resumed "stray names" "" 9
test -f ck/ckpt-15/COMPLETE || { ls ck; fail "stray names: the checkpoints went on elsewhere"; }
for s in $stray; do
	test -d "ck/$s" || { ls ck; fail "stray names: $s was removed"; }
done

killed "both damaged"
rm ck/ckpt-9/part-0
flip ck/ckpt-8/part-1 $(($(wc -c <ck/ckpt-8/part-1) - 3))
resumed "both damaged" "ck/ckpt-8/part-1: its data are corrupt (CRC32C)" 0
exit 0
