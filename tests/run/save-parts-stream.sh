#!/bin/sh
# save() to a stream (a pipe, a FIFO) of a loaded input held in parts:
# rank 0 writes it whole, and wrote zeros for the other ranks' parts
# (1 2 3 4 5 6 0 0 0 0 on 2 ranks, exit status 0), where a regular file
# was right.  On 1 to 3 ranks, to a pipe and to a FIFO.  And to
# /dev/stdout where that is a regular file (prog > out.txt): after what
# the program printed, where a temporary renamed over the path replaced
# the link /dev/stdout itself with a regular file, for every program on
# the machine; and a save to a symbolic link writes its target, keeping
# the link.
#
# Run by `make check` with SAPC, MPIEXEC and top_srcdir set.

: "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp
cd "$tmp" || exit 1

seq 1 1000 >in.txt
cat >p.sap <<'SAP'
param string out = "/dev/stdout";
dvector<long> P = load("in.txt");
long s = 0;
async for (long i = 0; i < len(P); i++) reduce(+: s) {
    s += P[i];
}
print("sum %d\n", s);
save(P, out);
SAP
"$SAPC" -o p p.sap || fail "sapc p.sap"
{ echo "sum 500500"; cat in.txt; } >want
test -L /dev/stdout || fail "/dev/stdout is no symbolic link before the test"
for np in 1 2 3; do
	$MPIEXEC -n $np ./p --threads=1 | cat >got || fail "p on $np ranks"
	cmp -s want got || fail "to a pipe on $np ranks: $(head -c 100 got | tr '\n' ' ')"
	# As /proc/self/fd/1, which names the same descriptor: were this to
	# go wrong again, renaming over /dev/stdout would break the machine.
	$MPIEXEC -n $np ./p --threads=1 --out=/proc/self/fd/1 >got || fail "p into a file on $np ranks"
	cmp -s want got || fail "into a file on $np ranks: $(head -c 100 got | tr '\n' ' ')"
	test -L /dev/stdout || fail "/dev/stdout is no longer a symbolic link (on $np ranks)"
	rm -f link real
	ln -s real link
	$MPIEXEC -n $np ./p --threads=1 --out=link >/dev/null || fail "p to a link on $np ranks"
	if ! test -L link || ! cmp -s in.txt real; then
		fail "to a symbolic link on $np ranks"
	fi
	rm -f fifo
	mkfifo fifo || fail "mkfifo"
	cat fifo >got &
	$MPIEXEC -n $np ./p --threads=1 --out=fifo >/dev/null || fail "p to a FIFO on $np ranks"
	wait
	cmp -s in.txt got || fail "to a FIFO on $np ranks: $(head -c 100 got | tr '\n' ' ')"
done

# A chain of links to a file yet to be made: its last target is written.
rm -f l1 l2 real1
ln -s real1 l1
ln -s l1 l2
./p --threads=1 --out=l2 >/dev/null || fail "p to a chain of links"
if ! test -L l1 || ! test -L l2 || ! cmp -s in.txt real1; then
	fail "to a chain of links: $(ls -l l1 l2 real1 2>&1)"
fi
# Links that lead back to themselves: an error, as fopen's, and the
# links stay links.
rm -f la lb
ln -s lb la
ln -s la lb
if ./p --threads=1 --out=la >/dev/null 2>err; then
	fail "p to a loop of links succeeded"
fi
grep -q "cannot write 'la': Too many levels of symbolic links" err ||
	{ cat err; fail "no message for a loop of links"; }
if ! test -L la || ! test -L lb; then
	fail "a loop of links: $(ls -l la lb 2>&1)"
fi
# A link to /dev/stdout, which a file takes (run alone: mpiexec's is a
# pipe): after what was printed, not over it.
rm -f lnk
ln -s /dev/stdout lnk
./p --threads=1 --out=lnk >got || fail "p to a link to /dev/stdout"
cmp -s want got || fail "to a link to /dev/stdout: $(head -c 100 got | tr '\n' ' ')"
exit 0
