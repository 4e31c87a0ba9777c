#!/usr/bin/env python3
"""Synthetic `ethtune tune --json` results of a fleet, with known answers, for profile merge.

fleet_gen.py --out DIR --hosts N --models M [--seed S] [--outliers K] [--bad]

Writes DIR/results/HOST/tune-DEV.json (valid against docs/schema/tune.json) and DIR/truth.json,
what `ethtune profile merge DIR/results` must find. Hosts are spread over M models (driver + PCI
ids); each model has a window of tx-usecs values its hosts take at full throughput (larger ones
cost a flow, so tune's rule accepts every value up to the window's end and picks its end: the
fewest interrupts). Planted:
  - K outliers: hosts at 0.6 of their model's throughput everywhere (a sick host), in the
    models of 8 hosts or more;
  - model 1 (with M >= 3): a firmware split: hosts of firmware "fw-A" take tx-usecs up to 64,
    those of "fw-B" lose a quarter of a flow below 256 (the rule accepts 256 and 512 only);
  - model 2 (with M >= 3): no common setting that firmware or the kernel explains: half its
    hosts (of either firmware) behave as fw-A, half as fw-B;
  - one more model of 2 hosts (under --min-hosts 3).
Every other model has one common setting: its window's end. Hosts' own spread is 2%, each
pass's 1%; the seed makes it all reproducible.
"""
import argparse
import json
import os
import random

LADDER = [0, 16, 32, 64, 128, 256, 512, 1024]
DRIVERS = ["mlx5_core", "ice", "bnxt_en", "i40e", "ixgbe", "igb", "tg3", "virtio_net"]
RULE = ("the smallest interrupt rate that keeps single-flow throughput within 5% of the best "
        "and RR p99 within twice the best")


def shape(kind, hi, v):
    """Share of the model's best throughput at tx-usecs v: 'low' takes values up to hi, 'high'
    takes 256 and 512 only (below 256 a firmware that completes too eagerly)."""
    if kind == "high":
        return 0.7 if v < 256 else (1.0 if v <= 512 else 0.75)
    if v <= hi:
        return 1.0
    return 0.75 if v <= 2 * hi else 0.6


def host_doc(rng, host, dev, m, kind, hi, factor, fw, kernel, date):
    base = m["base"] * factor
    points = []
    for v in LADDER:
        share = shape(kind, hi, v)
        passes = [base * share * (1 + rng.gauss(0, 0.01)) for _ in range(3)]
        passes_c = [0.92 * x * (1 + rng.gauss(0, 0.01)) for x in passes]
        p50 = [20 + v * 0.02 + rng.gauss(0, 0.3) for _ in range(3)]
        p99 = 40 + v * 0.05 + abs(rng.gauss(0, 0.5))
        points.append({
            "tx-usecs": v,
            "mbps": sum(passes) / 3,
            "mbps-constrained": sum(passes_c) / 3,
            "rr-p50-us": sum(p50) / 3,
            "rr-p99-us": p99,
            "irq-per-s": 1e6 / (v + 10) * (1 + rng.gauss(0, 0.02)),
            "cpu-per-gbps": 2.0 + 40.0 / (v + 10),
            "pareto": False,
            "pass-mbps": passes,
            "pass-mbps-constrained": passes_c,
            "pass-rr-p50-us": p50,
        })
    want = max(v for v in LADDER if shape(kind, hi, v) == 1.0 and v <= 512)
    best = next(p for p in points if p["tx-usecs"] == want)
    doc = {
        "schema-version": 1,
        "device": dev,
        "driver": m["driver"],
        "objective": "balanced",
        "param": "tx-usecs",
        "host": host,
        "kernel": kernel,
        "ethtune-version": "0.1.0",
        "date": date,
        "bus-info": "0000:%02x:00.0" % (m["index"] % 256),
        "firmware-version": fw,
        "driver-version": kernel,
        "vendor-id": m["vendor"],
        "device-id": m["device"],
        "subsystem-vendor-id": m["vendor"],
        "subsystem-device-id": m["subdev"],
        "coalesce-sweep": {"tsq-current": 1048576, "tsq-constrained": 65536, "points": points},
        "recommendation": {
            "rule": RULE, "param": "tx-usecs", "value": want, "mbps": best["mbps"],
            "mbps-constrained": best["mbps-constrained"], "rr-p99-us": best["rr-p99-us"],
        },
    }
    return doc, want


def key(m):
    return "%s|%s:%s/%s:%s" % (m["driver"], m["vendor"], m["device"], m["vendor"], m["subdev"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--hosts", type=int, required=True)
    ap.add_argument("--models", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--outliers", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    models = []
    for i in range(args.models + 1):  # the last: the model of two hosts
        models.append({
            "index": i, "driver": DRIVERS[i % len(DRIVERS)], "vendor": "%04x" % (0x1000 + i % 7),
            "device": "%04x" % (0x2000 + i), "subdev": "%04x" % (0x0100 + i),
            "base": rng.choice([9400.0, 23500.0, 940.0, 47000.0]),
            "hi": rng.choice([32, 64, 128, 256]), "hosts": [],
        })
    for h in range(args.hosts):
        models[h % args.models]["hosts"].append("h%05d" % h)
    models[-1]["hosts"] = ["few-a", "few-b"]
    big = [m for m in models[:args.models] if len(m["hosts"]) >= 8 and
           not (args.models >= 3 and m["index"] in (1, 2))]
    pool = [(m["index"], h) for m in big for h in m["hosts"]]
    rng.shuffle(pool)
    # at most one outlier in 20 hosts of a model (at least one): a model of 10 with two sick
    # hosts of ten is a fleet of two kinds, not one with an outlier
    outliers, per = set(), {}
    for i, h in pool:
        cap = max(1, len(models[i]["hosts"]) // 20)
        if len(outliers) < args.outliers and per.get(i, 0) < cap:
            outliers.add((i, h))
            per[i] = per.get(i, 0) + 1
    truth = {"seed": args.seed, "models": {}}
    res = os.path.join(args.out, "results")
    for m in models:
        t = {"hosts": len(m["hosts"]), "outliers": []}
        split = args.models >= 3 and m["index"] == 1
        mixed = args.models >= 3 and m["index"] == 2
        for n, host in enumerate(m["hosts"]):
            fw = rng.choice(["fw-A", "fw-B"])
            if split:
                fw = "fw-A" if n % 2 else "fw-B"
            elif mixed:  # each firmware (and kernel) has hosts of both kinds
                fw = "fw-A" if n % 4 < 2 else "fw-B"
            kind = "low"
            if split:
                kind = "high" if fw == "fw-B" else "low"
            elif mixed:
                kind = "high" if n % 2 else "low"
            hi = 64 if (split or mixed) else m["hi"]
            factor = rng.gauss(1, 0.02)
            if (m["index"], host) in outliers:
                factor = 0.6
                t["outliers"].append(host)
            kernel = rng.choice(["6.1.0-18-amd64", "6.12.9-amd64"])
            if mixed:
                kernel = "6.1.0-18-amd64" if n % 8 < 4 else "6.12.9-amd64"
            date = "2026-12-%02dT%02d:%02d:00Z" % (1 + n % 7, rng.randrange(24), rng.randrange(60))
            doc, _ = host_doc(rng, host, "eth0", m, kind, hi, factor, fw, kernel, date)
            os.makedirs(os.path.join(res, host), exist_ok=True)
            with open(os.path.join(res, host, "tune-eth0.json"), "w") as f:
                json.dump(doc, f)
        if split:
            t.update(verdict="no-common-setting", explained_by="firmware",
                     parts={"fw-A": 64, "fw-B": 512})
        elif mixed:
            t.update(verdict="no-common-setting", explained_by=None, wants=[64, 512])
        elif len(m["hosts"]) < 3:
            t.update(verdict="too-few-hosts")
        else:
            t.update(verdict="profile", value=m["hi"])
        t["outliers"].sort()
        truth["models"][key(m)] = t
    with open(os.path.join(args.out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
