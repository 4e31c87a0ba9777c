#!/usr/bin/env python3
"""Paired ratio of two interleaved series: the median of per-round ratios B/A with its
distribution-free interval (sign-test order statistics), for the benches' side-by-side figures.

  paired.py "A1 A2 ..." "B1 B2 ..." BOUND
prints: median lo hi coverage-pct n above|below|straddles|too-few-rounds median-A median-B
(the first five "nan", where "n/a", under 2 pairs). A round whose A or B is not a positive number
is left out of the pairs (and counted out of n) and of the medians.

  paired.py --diff "A1 A2 ..." "B1 B2 ..." BOUND
the same for the per-round differences B - A (a cost added by B), where A and B may be 0.
"""
import math
import statistics
import sys


def nums(s):
    out = []
    for x in s.split():
        try:
            out.append(float(x))
        except ValueError:
            out.append(float("nan"))
    return out


def interval(r):
    """Order-statistic interval for the median: the widest k with coverage >= 95%, or the
    whole range (k = 0) with its smaller, stated coverage when n is too small for 95%."""
    n = len(r)
    # P(Bin(n, 1/2) <= j)
    cdf = lambda j: sum(math.comb(n, i) for i in range(j + 1)) / 2 ** n
    k = 0
    while k + 1 < n / 2 and 1 - 2 * cdf(k + 1) >= 0.95:
        k += 1
    return r[k], r[n - 1 - k], 100 * (1 - 2 * cdf(k))


def main():
    diff = sys.argv[1] == "--diff"
    args = sys.argv[2:] if diff else sys.argv[1:]
    a, b = nums(args[0]), nums(args[1])
    bound = float(args[2])
    if diff:
        ok = [(x, y) for x, y in zip(a, b) if x >= 0 and y >= 0]
        r = sorted(y - x for x, y in ok)
    else:
        ok = [(x, y) for x, y in zip(a, b) if x > 0 and y > 0]
        r = sorted(y / x for x, y in ok)
    med = lambda v: f"{statistics.median(v):.2f}" if v else "nan"
    tail = f"{med([x for x, _ in ok])} {med([y for _, y in ok])}"
    if len(r) < 2:
        print(f"nan nan nan nan {len(r)} n/a {tail}")
        return
    lo, hi, cov = interval(r)
    # a side of the bound is claimed only on an interval of 95% or more (6 pairs and up)
    if cov < 95:
        where = "too-few-rounds"
    else:
        where = "above" if lo >= bound else "below" if hi < bound else "straddles"
    print(f"{statistics.median(r):.3f} {lo:.3f} {hi:.3f} {cov:.1f} {len(r)} {where} {tail}")


if __name__ == "__main__":
    main()
