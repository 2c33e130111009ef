import math
def H(N, t):
    K = min(N, 100000); s = sum(r**-t for r in range(1, K+1))
    if N > K: s += ((N+0.5)**(1-t) - (K+0.5)**(1-t)) / (1-t)
    return s
def first_reads(N, M, t=0.9):
    h = H(N, t); dk = 0.0; K = min(N, 200000)
    for r in range(1, K+1): dk += -math.expm1(-M * r**-t / h)
    if N > K:
        n = 4000; lo, hi = math.log(K+0.5), math.log(N+0.5)
        for i in range(n):
            x0 = lo+(hi-lo)*i/n; x1 = lo+(hi-lo)*(i+1)/n; r = math.exp((x0+x1)/2)
            dk += -math.expm1(-M * r**-t / h) * (math.exp(x1)-math.exp(x0))
    return dk / M
print("paper, 200M records: A (500k reads) %.3f, B (950k) %.3f, C (1M) %.3f" % tuple(first_reads(200_000_000, m) for m in (500_000, 950_000, 1_000_000)))
for m in (977, 1855, 1953, 3906, 5859, 9765, 18552, 19530):
    print("ours, 400k records, %6d reads: %.3f" % (m, first_reads(400_000, m)))
