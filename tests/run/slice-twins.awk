# awk -v seed=SEED -f slice-twins.awk: a random async for body over the
# conditions, inner loops, break, continue and locals a reconnaissance
# slice handles, run as an async for and as a plain for (its twin) on
# copies of the same data; the program prints how many elements differ.
# Deterministic for a given seed, with its own generator (Park-Miller,
# exact in any awk's doubles), so every awk writes the same programs.
# Used by slice-twins.sh.

function rnd(n) {
	state = (state * 48271) % 2147483647
	return state % n
}
# Lists are strings of space-separated names.
function count(l,    a) { return split(l, a, " ") }
function pick(l,    a, n) { n = split(l, a, " "); return a[rnd(n) + 1] }
function newname(p) { nn++; return p nn }
function cond(loopvars,    c, C) {
	c = rnd(6); C = rnd(4)
	if (c == 0) return "w[j] > " (C - 1)
	if (c == 1) return "len(X[j].rows) > " C
	if (c == 2) return "len(X[j].rows) > " C " && w[j] > " (C - 2)
	if (c == 3) return "len(X[j].rows) < " C " || w[j] > " (C - 2)
	if (c == 4 && loopvars != "") return "w[j] > " pick(loopvars)
	return "X[j].rows[0] % 3 == " (C % 3)
}
function expr(locs, loopvars,    c, v, a) {
	c = rnd(5)
	if (c == 0 || (locs == "" && loopvars == "")) return "X[j].rows[0]"
	if (c == 1) return "int(j % " M ")"
	if (c == 2 && loopvars != "") return "X[j].rows[" pick(loopvars) "]"
	if (locs != "") {
		v = pick(locs); a = rnd(4) + 1
		return "(" v " * " a " + " rnd(7) ") % " M
	}
	return "X[j].rows[len(X[j].rows) - 1]"
}
# The locals a block declares stay in it: blocks get a copy (awk passes
# strings by value); stmt returns the list with its declaration added.
function block(depth, locs, loopvars, inloop,    n, i) {
	n = rnd(3) + 2
	for (i = 0; i < n; i++)
		locs = stmt(depth, locs, loopvars, inloop)
}
function stmt(depth, locs, loopvars, inloop,    ind, c, v, k, extra, choices, a) {
	ind = substr("                                        ", 1, 4 * (depth + 2))
	split("0 1 2 2 2 2 3 3 3 4 4 5 5 6 7 7", choices, " ")
	c = choices[rnd(16) + 1] + 0
	if (c <= 1) {
		v = newname("v")
		out(ind "int " v " = " expr(locs, loopvars) ";")
		return locs == "" ? v : locs " " v
	}
	if (c == 2 && locs != "") {
		v = pick(locs)
		out(ind v " = " expr(locs, loopvars) ";")
		return locs
	}
	if (c == 3 && depth < 2) {
		out(ind "if (" cond(loopvars) ") {")
		block(depth + 1, locs, loopvars, inloop)
		if (rnd(2)) {
			out(ind "} else {")
			block(depth + 1, locs, loopvars, inloop)
		}
		out(ind "}")
		return locs
	}
	if (c == 4 && depth < 2) {
		k = newname("k")
		extra = rnd(3) == 0 ? " && w[j] > " k : ""
		out(ind "for (int " k " = 0; " k " < len(X[j].rows)" extra "; " k "++) {")
		block(depth + 1, locs, loopvars == "" ? k : loopvars " " k, 1)
		out(ind "}")
		return locs
	}
	if (c == 5 && inloop) {
		out(ind "if (" cond(loopvars) ")")
		out(ind "    " (rnd(2) ? "continue" : "break") ";")
		return locs
	}
	if (c == 6 && depth == 0) {
		out(ind "if (" cond(loopvars) ")")
		out(ind "    continue;")
		return locs
	}
	out(ind "r[" expr(locs, loopvars) "] += " (rnd(3) + 1) ";")
	return locs
}
function out(s) { body[++nb] = s }
function twin(s) {
	gsub(/w\[j\]/, "w2[j]", s)
	gsub(/r\[/, "r2[", s)
	gsub(/z\[j\]/, "z2[j]", s)
	return s
}
BEGIN {
	M = 211
	state = seed % 2147483646 + 1
	nb = 0; nn = 0
	out("        w[j] += " (rnd(3) - 1) ";")
	if (rnd(2)) {
		out("        int old = z[j];")
		locs0 = "old"
	} else {
		locs0 = ""
	}
	block(0, locs0, "", 0)
	out("        r[" expr(locs0, "") "] += 1;")
	if (locs0 != "")
		out("        z[j] = (old + 1) % " M ";")
	print "struct Row { list<int> rows; }"
	print "const long N = 2000;"
	print "const int M = " M ";"
	print "dvector<Row> X(N);"
	print "dvector<int> w(N);"
	print "dvector<int> r(M);"
	print "dvector<int> w2(N);"
	print "dvector<int> r2(M);"
	print "dvector<int> z(N);"
	print "dvector<int> z2(N);"
	print "for (long j = 0; j < N; j++) {"
	print "    for (int k = 0; k < int((j * 7) % 5) + 1; k++)"
	print "        push(X[j].rows, int((j * 31 + k * 17) % M));"
	print "    w[j] = int(j % 7) - 3;"
	print "    w2[j] = w[j];"
	print "    z[j] = int(j % M);"
	print "    z2[j] = z[j];"
	print "}"
	print "for (int it = 0; it < 2; it++) {"
	print "    async for (long j = 0; j < N; j++) {"
	for (i = 1; i <= nb; i++)
		print body[i]
	print "    }"
	print "    for (long j = 0; j < N; j++) {"
	for (i = 1; i <= nb; i++)
		print twin(body[i])
	print "    }"
	print "}"
	print "long bad = 0;"
	print "async for (long i = 0; i < M; i++) reduce(+: bad) {"
	print "    if (r[i] != r2[i])"
	print "        bad += 1;"
	print "}"
	print "async for (long j = 0; j < N; j++) reduce(+: bad) {"
	print "    if (w[j] != w2[j] || z[j] != z2[j])"
	print "        bad += 1;"
	print "}"
	print "print(\"bad %d\\n\", bad);"
}
