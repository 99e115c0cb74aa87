# stats.awk: sum the reconnaissance and planning seconds in the --stats
# output of a SAP program (its standard error).
#
#   awk -f bench/stats.awk stderr.txt    ->  "RECON_S PLAN_S ROWS TABLES"
#
# The table's exact layout is not fixed yet, so this reads any table whose
# header line names a column starting with "recon" and one starting with
# "plan" (recon, recon_s, recon(s), reconnaissance, plan, plan[ms],
# planning, ...; not "recons" or "plans", which are counts), with fields
# separated by blanks or by '|'.  A row may have more cells than the
# header when its last column is free text.  The rows
# below the header, up to a blank or non-numeric line, are loops; a row
# whose first field is total/all/sum is skipped so it is not counted twice.
# Cells may carry a unit (0.12s, 15ms, 40us); a header unit (ms, us)
# applies to cells without one; "-" and "n/a" count as 0.  Several tables
# (one per rank) are added up.  Exit status 1, with the reason on standard
# error, when there is no such table, a column name is ambiguous, or a row
# does not parse: a benchmark must not report a share it could not read.

function trim(s) {
	sub(/^[ \t]+/, "", s)
	sub(/[ \t]+$/, "", s)
	return s
}

# Split line into cells: on '|' if it has any, else on blanks.
function cells(line, c,    n, k, t, m) {
	if (index(line, "|")) {
		n = split(line, t, "|")
		m = 0
		for (k = 1; k <= n; k++) {
			t[k] = trim(t[k])
			if (t[k] != "" || (k > 1 && k < n))
				c[++m] = t[k]
		}
		return m
	}
	return split(line, c, " ")     # blanks, leading ones ignored
}

function unit_scale(u) {
	u = tolower(u)
	if (u == "" || u == "s" || u == "sec" || u == "secs" || u == "seconds")
		return 1
	if (u == "ms")
		return 1e-3
	if (u == "us" || u == "µs")
		return 1e-6
	if (u == "ns")
		return 1e-9
	return -1
}

# The unit named in a header cell such as recon_ms, plan(us) or recon[s].
function header_scale(h,    u) {
	u = tolower(h)
	if (match(u, /[_([ ]([mun]?s|µs|sec|secs|seconds)[)\]]?$/)) {
		u = substr(u, RSTART + 1)
		gsub(/[)\]]/, "", u)
		return unit_scale(u)
	}
	return 1
}

# Seconds in a cell, or "" if it is not a number.
function seconds(cell, scale,    v, u) {
	if (cell == "-" || tolower(cell) == "n/a" || cell == "")
		return 0
	if (!match(cell, /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?/))
		return ""
	v = substr(cell, 1, RLENGTH) + 0
	u = substr(cell, RLENGTH + 1)
	if (u != "") {
		scale = unit_scale(u)
		if (scale < 0)
			return ""
	}
	return v * scale
}

# Column of the header matching re; among several, the one that looks like
# a time.  0 if none, -1 if ambiguous.
function pick(c, n, re,    k, found, nf, timed, nt) {
	nf = nt = 0
	for (k = 1; k <= n; k++) {
		if (tolower(c[k]) !~ re)
			continue
		nf++
		found = k
		if (tolower(c[k]) ~ /([_([ ]([mun]?s|µs|sec|secs|seconds|time)[)\]]?$)/) {
			nt++
			timed = k
		}
	}
	if (nf <= 1)
		return nf ? found : 0
	return nt == 1 ? timed : -1
}

BEGIN {
	intable = 0
	tables = rows = 0
	recon = plan = 0
	bad = ""
}

bad != "" { next }

!intable {
	n = cells($0, c)
	rc = pick(c, n, "^recon(naissance)?([^a-z]|$)")
	pc = pick(c, n, "^plan(ning)?([^a-z]|$)")
	if (rc < 0 || pc < 0) {
		bad = "ambiguous recon/plan columns in the header: " $0
		next
	}
	if (rc && pc) {
		intable = 1
		tables++
		hn = n
		rscale = header_scale(c[rc])
		pscale = header_scale(c[pc])
		header = $0
	}
	next
}

{
	if ($0 ~ /^[ \t]*$/) {
		intable = 0
		next
	}
	if ($0 ~ /^[ \t|:+=-]+$/)       # a rule under the header
		next
	n = cells($0, c)
	if (tolower(c[1]) ~ /^(total|all|sum)([^a-z]|$)/)
		next
	# More cells than the header: the last column is free text (libsap's
	# verdict, "serialized: REASON"), which comes after recon and plan.
	r = (n >= hn) ? seconds(c[rc], rscale) : ""
	p = (n >= hn) ? seconds(c[pc], pscale) : ""
	if (r == "" || p == "") {
		if (rows == 0)
			bad = "cannot read the recon/plan cells of\n  " $0 \
			      "\nunder the header\n  " header
		intable = 0
		next
	}
	recon += r
	plan += p
	rows++
}

END {
	if (bad == "" && tables == 0)
		bad = "no table with recon and plan columns"
	if (bad == "" && rows == 0)
		bad = "a recon/plan table with no rows"
	if (bad != "") {
		print "stats.awk: " bad > "/dev/stderr"
		exit 1
	}
	printf "%.9f %.9f %d %d\n", recon, plan, rows, tables
}
