# slice-twins.py SEED: a random async for body over the conditions,
# inner loops, break, continue and locals a reconnaissance slice handles,
# run as an async for and as a plain for (its twin) on copies of the same
# data; the program prints how many elements differ.  Deterministic for a
# given seed.  Used by slice-twins.sh.
import random, sys
seed = int(sys.argv[1]); rnd = random.Random(seed)
M = 211
class G:
    def __init__(s):
        s.n = 0
    def new(s, p):
        s.n += 1; return "%s%d" % (p, s.n)
g = G()
def cond(loopvars):
    c = rnd.randrange(6)
    C = rnd.randrange(4)
    if c == 0: return "w[j] > %d" % (C - 1)
    if c == 1: return "len(X[j].rows) > %d" % C
    if c == 2: return "len(X[j].rows) > %d && w[j] > %d" % (C, C - 2)
    if c == 3: return "len(X[j].rows) < %d || w[j] > %d" % (C, C - 2)
    if c == 4 and loopvars: return "w[j] > %s" % rnd.choice(loopvars)
    return "X[j].rows[0] %% 3 == %d" % (C % 3)
def expr(locs, loopvars):
    c = rnd.randrange(5)
    if c == 0 or not (locs or loopvars): return "X[j].rows[0]"
    if c == 1: return "int(j %% %d)" % M
    if c == 2 and loopvars: 
        k = rnd.choice(loopvars); return "X[j].rows[%s]" % k
    if locs:
        v = rnd.choice(locs); return "(%s * %d + %d) %% %d" % (v, rnd.randrange(1, 5), rnd.randrange(7), M)
    return "X[j].rows[len(X[j].rows) - 1]"
def block(depth, locs, loopvars, inloop, out):
    n = rnd.randrange(2, 5)
    locs = list(locs)
    for _ in range(n):
        stmt(depth, locs, loopvars, inloop, out)
    return
def stmt(depth, locs, loopvars, inloop, out):
    ind = "    " * (depth + 2)
    c = rnd.choice([0,1,2,2,2,2,3,3,3,4,4,5,5,6,7,7])
    if c <= 1:
        v = g.new("v"); out.append(ind + "int %s = %s;" % (v, expr(locs, loopvars))); locs.append(v); return
    if c == 2 and locs:
        v = rnd.choice(locs); out.append(ind + "%s = %s;" % (v, expr(locs, loopvars))); return
    if c == 3 and depth < 2:
        out.append(ind + "if (%s) {" % cond(loopvars)); block(depth + 1, locs, loopvars, inloop, out)
        if rnd.randrange(2):
            out.append(ind + "} else {"); block(depth + 1, locs, loopvars, inloop, out)
        out.append(ind + "}"); return
    if c == 4 and depth < 2:
        k = g.new("k")
        extra = " && w[j] > %s" % k if rnd.randrange(3) == 0 else ""
        out.append(ind + "for (int %s = 0; %s < len(X[j].rows)%s; %s++) {" % (k, k, extra, k))
        block(depth + 1, locs, loopvars + [k], True, out); out.append(ind + "}"); return
    if c == 5 and inloop:
        out.append(ind + "if (%s)" % cond(loopvars)); out.append(ind + "    %s;" % rnd.choice(["break", "continue"])); return
    if c == 6 and depth == 0:
        out.append(ind + "if (%s)" % cond(loopvars)); out.append(ind + "    continue;"); return
    out.append(ind + "r[%s] += %d;" % (expr(locs, loopvars), rnd.randrange(1, 4)))
body = []
body.append("        w[j] += %d;" % rnd.randrange(-1, 2))
if rnd.randrange(2):
    body.append("        int old = z[j];"); locs0 = ["old"]
else:
    locs0 = []
block(0, locs0, [], False, body)
body.append("        r[%s] += 1;" % expr(locs0 + [], []))
if locs0:
    body.append("        z[j] = (old + 1) %% %d;" % M)
B = "\n".join(body)
def twin(b): return b.replace("w[j]", "w2[j]").replace("r[", "r2[").replace("z[j]", "z2[j]")
print("""struct Row { list<int> rows; }
const long N = 2000;
const int M = %d;
dvector<Row> X(N);
dvector<int> w(N);
dvector<int> r(M);
dvector<int> w2(N);
dvector<int> r2(M);
dvector<int> z(N);
dvector<int> z2(N);
for (long j = 0; j < N; j++) {
    for (int k = 0; k < int((j * 7) %% 5) + 1; k++)
        push(X[j].rows, int((j * 31 + k * 17) %% M));
    w[j] = int(j %% 7) - 3;
    w2[j] = w[j];
    z[j] = int(j %% M);
    z2[j] = z[j];
}
for (int it = 0; it < 2; it++) {
    async for (long j = 0; j < N; j++) {
%s
    }
    for (long j = 0; j < N; j++) {
%s
    }
}
long bad = 0;
async for (long i = 0; i < M; i++) reduce(+: bad) {
    if (r[i] != r2[i])
        bad += 1;
}
async for (long j = 0; j < N; j++) reduce(+: bad) {
    if (w[j] != w2[j] || z[j] != z2[j])
        bad += 1;
}
print("bad %%d\\n", bad);""" % (M, B, twin(B)))
