"""Disk full: the data directory on a small tmpfs; the service must keep positioning and serving,
report the storage error, and resume writing when space returns."""
import os, socket, subprocess, threading, time
from common import Server, Verdicts, integrity, say, simulate, stamp_join

RATE = 20_000          # ingest lines/s, paced
SIZE, BIGGER = "3m", "64m"


def paced(port, bodies, stop, sent):
    s = socket.create_connection(("127.0.0.1", port))
    t0, i = time.time(), 0
    try:
        while not stop.is_set():
            due = int((time.time() - t0) * RATE)
            if due <= sent[0]:
                time.sleep(0.005)
                continue
            n = min(due - sent[0], 2000)
            chunk = [bodies[(i + k) % len(bodies)] for k in range(n)]
            i += n
            s.sendall(stamp_join(chunk))
            sent[0] += n
    finally:
        s.close()


def reader(port, stop, got):
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"subscribe kinds=position\n")
        s.settimeout(0.2)
        while not stop.is_set():
            try:
                data = s.recv(1 << 20)
            except socket.timeout:
                continue
            if not data:
                break
            got[0] += data.count(b"\nposition")


def wait_for(server, predicate, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        st = server.stats()
        if predicate(st):
            return st
        time.sleep(0.25)
    return None


def run(work, quick):
    v = Verdicts()
    mnt = os.path.join(work, "tmpfs")
    os.makedirs(mnt, exist_ok=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", mnt],
                      stderr=subprocess.DEVNULL).returncode != 0:
        say("diskfull: SKIP: cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN); nothing checked")
        return v
    say(f"diskfull: data directory on a {SIZE} tmpfs, {RATE:,} lines/s; then remount {BIGGER}")
    log = os.path.join(work, "diskfull-serve.log")
    server = None
    try:
        bodies = [b for b, _ in simulate(work, 400, 30)]
        server = Server(os.path.join(mnt, "data"), log).start()
        stop, sent, got = threading.Event(), [0], [0]
        threads = [threading.Thread(target=paced, args=(server.ingest, bodies, stop, sent)),
                   threading.Thread(target=reader, args=(server.feed, stop, got))]
        for t in threads:
            t.start()
        t_start = time.time()
        full = wait_for(server, lambda st: "history_error" in st, 60)
        if not v.check("the disk fills and #stats reports it", full is not None,
                       f"history_error={full.get('history_error') if full else None!r}"):
            return v
        say(f"  full after {time.time() - t_start:.1f} s; {full['history_rows_written']:,} rows written")
        a, ga, ta = server.stats(), got[0], time.time()
        time.sleep(4 if quick else 8)
        b, gb, tb = server.stats(), got[0], time.time()
        dt = tb - ta
        say(f"  while full ({dt:.1f} s): ingest {(b['lines_in'] - a['lines_in']) / dt:,.0f} lines/s, positions "
            f"{(b['positions_out'] - a['positions_out']) / dt:,.0f}/s, feed lines read {(gb - ga) / dt:,.0f}/s, "
            f"rows written +{b['history_rows_written'] - a['history_rows_written']}, pending {b['history_pending']:,}, "
            f"dropped {b['history_dropped']:,}")
        v.check("ingest goes on while the disk is full", b["lines_in"] > a["lines_in"] + RATE * dt * 0.8,
                f"+{b['lines_in'] - a['lines_in']:,} lines")
        v.check("positioning and the feed go on", b["positions_out"] > a["positions_out"] and gb > ga,
                f"+{b['positions_out'] - a['positions_out']:,} positions, +{gb - ga:,} feed lines read")
        v.check("the error is still reported", "history_error" in b, repr(b.get("history_error")))
        logged = [l for l in open(log, errors="replace") if "level=error" in l or "level=warning" in l]
        v.check("the error is in the log", any("histor" in l for l in logged),
                (logged[-1].strip()[:160] if logged else "no warning or error line"))
        subprocess.run(["mount", "-o", f"remount,size={BIGGER}", mnt], check=True)
        t_room = time.time()
        resumed = wait_for(server, lambda st: st["history_rows_written"] > b["history_rows_written"]
                           and "history_error" not in st, 15)
        v.check("writing resumes once there is room", resumed is not None,
                f"after {time.time() - t_room:.1f} s, rows written {b['history_rows_written']:,} -> "
                f"{(resumed or server.stats())['history_rows_written']:,}, history_error="
                f"{(resumed or server.stats()).get('history_error')!r}")
        time.sleep(2)
        stop.set()
        for t in threads:
            t.join()
        drained = wait_for(server, lambda st: st["history_pending"] == 0, 20)
        last = drained or server.stats()
        code = server.stop()
        db = os.path.join(mnt, "data", "sextant.sqlite")
        ok = integrity(db)
        import sqlite3
        con = sqlite3.connect(db)
        rows = con.execute("SELECT count(*) FROM positions").fetchone()[0]
        con.close()
        say(f"  after: {last['history_rows_written']:,} rows written, {last['history_dropped']:,} dropped, "
            f"{rows:,} rows in the table, {last['positions_out']:,} positions produced; exit {code}")
        v.check("the backlog is written and nothing dropped", drained is not None and last["history_dropped"] == 0,
                f"pending {last['history_pending']}, dropped {last['history_dropped']}")
        v.check("integrity_check after the disk-full episode", ok == "ok", ok)
        return v
    finally:
        if server:
            server.stop()
        if subprocess.run(["umount", mnt]).returncode != 0:
            say(f"diskfull: could not unmount {mnt}; unmounting it lazily")
            subprocess.run(["umount", "-l", mnt])
