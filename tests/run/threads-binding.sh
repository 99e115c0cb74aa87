#!/bin/sh
# --threads=T on a rank that Open MPI's default policy bound to one core
# (one or two ranks on the node): the rank takes its share of the node's
# CPUs, so that its threads do not take turns on that core; a binding
# given to mpiexec (--bind-to core) is kept.  The program asks C how
# many CPUs it may run on.
set -u
: "${SAPC:?must be set}" "${top_srcdir:?must be set}"
# shellcheck source=../preamble.sh source-path=SCRIPTDIR
. "$top_srcdir/tests/preamble.sh"
need_sapc
need_mpiexec
make_tmp

cpus=$(getconf _NPROCESSORS_ONLN)
test "$cpus" -ge 2 || { echo "SKIP: one CPU"; exit 77; }
cat >"$tmp/cpus.c" <<'C'
#define _GNU_SOURCE
#include <sched.h>
int allowed(void)
{
	cpu_set_t s;
	return sched_getaffinity(0, sizeof s, &s) == 0 ? CPU_COUNT(&s) : -1;
}
C
cat >"$tmp/cpus.sap" <<'SAP'
extern int allowed();
print("%d\n", allowed());
SAP
"$SAPC" -o "$tmp/cpus" "$tmp/cpus.sap" "$tmp/cpus.c" || fail "sapc cpus.sap"
# What mpiexec gives a rank by default here: one core when it binds.
bound=$($MPIEXEC -n 1 "$tmp/cpus") || fail "cpus"
test "$bound" -ge 1 || fail "cpus printed '$bound'"
n=$($MPIEXEC -n 1 "$tmp/cpus" --threads=2) || fail "cpus --threads=2"
test "$n" -ge 2 || fail "--threads=2 on one rank runs on $n CPU (mpiexec alone gives $bound)"
test "$n" -ge "$bound" || fail "--threads=2 narrowed the rank's CPUs: $n, from $bound"
if $MPIEXEC -n 1 --bind-to core true >/dev/null 2>&1; then
	k=$($MPIEXEC -n 1 --bind-to core "$tmp/cpus" --threads=2) || fail "cpus --bind-to core"
	test "$k" = 1 || fail "--bind-to core was not kept: $k CPUs"
fi
exit 0
