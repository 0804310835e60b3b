#!/usr/bin/env python3
"""Textbook NumPy EKF: the throughput baseline of `sextant-bench throughput`.

The straightforward implementation a data scientist would write: read the ingest file line by line,
parse each `ranging` line with str.split, and run one 6-state constant-velocity EKF per tag
([x, y, z, vx, vy, vz], white acceleration of density q), predicting and updating with NumPy matrices.
No output is encoded (Sextant's timed path also encodes position lines), so this is, if anything,
generous to the baseline.

Usage: numpy_ekf.py --site SITE.json --input STREAM.lp [--max-lines N] [--q 1.0]
Prints one line: "numpy_ekf: N ranging lines in S s CPU (W s wall): R lines/s", R from the CPU time of
the thread (the machine may be shared; the bench times Sextant the same way).
"""
import argparse
import json
import sys
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--site", required=True, help="site JSON (anchors, dimensions)")
    ap.add_argument("--input", required=True, help="ingest line-protocol file")
    ap.add_argument("--max-lines", type=int, default=0, help="stop after this many ranging lines (0: all)")
    ap.add_argument("--q", type=float, default=1.0, help="white-acceleration density, m^2/s^3")
    args = ap.parse_args()

    with open(args.site) as f:
        site = json.load(f)
    anchors = {a["id"]: np.array(a["position"], dtype=float) for a in site["anchors"]}
    lo = np.array(site["bounds"]["min"], dtype=float)
    hi = np.array(site["bounds"]["max"], dtype=float)
    centre = (lo + hi) / 2
    planar = site.get("dimensions", 3) == 2
    if planar:
        centre[2] = site["tagHeight"]
    mask = np.ones(6)
    if planar:
        mask[2] = mask[5] = 0.0          # 2-D: z pinned at the tag height
    M = np.outer(mask, mask)
    I6 = np.eye(6)

    filters = {}                          # tag -> [x (6,), P (6, 6), t seconds]
    n = 0
    start = time.perf_counter()
    cpu_start = time.thread_time()
    with open(args.input) as f:
        for line in f:
            if not line.startswith("ranging,"):
                continue
            head, fields, stamp = line.split(" ")
            tags = dict(kv.split("=", 1) for kv in head.split(",")[1:])
            values = dict(kv.split("=", 1) for kv in fields.split(","))
            if "distance" not in values:
                continue
            d = float(values["distance"])
            std = float(values.get("std", "0.1"))
            t = int(stamp) * 1e-9
            a = anchors[tags["anchor"]]
            tag = tags["tag"]

            state = filters.get(tag)
            if state is None:
                x = np.zeros(6)
                x[:3] = centre
                P = np.diag([25.0, 25.0, 25.0, 2.25, 2.25, 2.25]) * M
                state = [x, P, t]
                filters[tag] = state
            x, P, t0 = state

            dt = t - t0
            if dt > 0:
                F = np.eye(6)
                F[0:3, 3:6] = dt * np.eye(3)
                q = args.q
                Q = np.block([[q * dt**3 / 3 * np.eye(3), q * dt**2 / 2 * np.eye(3)],
                              [q * dt**2 / 2 * np.eye(3), q * dt * np.eye(3)]]) * M
                x = F @ x
                P = F @ P @ F.T + Q

            diff = x[:3] - a
            r = np.linalg.norm(diff)
            if r > 1e-9:
                H = np.zeros((1, 6))
                H[0, :3] = diff / r
                H = H * mask
                S = H @ P @ H.T + std * std
                K = P @ H.T / S
                x = x + (K * (d - r)).ravel()
                P = (I6 - K @ H) @ P
            state[0], state[1], state[2] = x, P, t

            n += 1
            if args.max_lines and n >= args.max_lines:
                break
    elapsed = time.perf_counter() - start
    cpu = time.thread_time() - cpu_start
    rate = n / cpu if cpu > 0 else float("nan")
    print(f"numpy_ekf: {n} ranging lines in {cpu:.3f} s CPU ({elapsed:.3f} s wall): {rate:.0f} lines/s "
          f"({len(filters)} tags)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
