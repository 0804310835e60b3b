"""SIGKILL during full-rate ingest, restart on the same data directory, and check what survived."""
import multiprocessing as mp, os, random, socket, sqlite3, threading, time
from common import (HISTORY_MAX_DELAY, Server, Verdicts, integrity, say, simulate, stamp_join)

GATEWAYS = 4
CHUNK = 2000           # lines per send, each chunk stamped with the wall clock just before it goes
# The documented loss window: a row waits at most historyMaxDelay before its batch starts, and the
# batch then needs its commit time. The 0.1 s commit allowance is this check's choice: the writer
# alone does 167,000-192,000 rows/s (docs/benchmarks.md), so a full 4,096-row batch takes ~25 ms.
WINDOW = HISTORY_MAX_DELAY + 0.1


def blast(port, bodies, stop, sent):
    """Sends `bodies` (looping) as fast as the server takes them, from one gateway."""
    s = socket.create_connection(("127.0.0.1", port))
    i = 0
    try:
        while not stop.is_set():
            chunk = bodies[i:i + CHUNK]
            i = i + CHUNK if i + CHUNK < len(bodies) else 0
            s.sendall(stamp_join(chunk))
            sent[0] += len(chunk)
    except OSError:
        pass
    finally:
        s.close()


def watch(port, prefix, out):
    """A dashboard (its own process, so that the senders' GIL does not delay it) subscribed to every
    position: sends back (tag, t_ns, receive time) of this round's tags in the order the service
    produced them, once the service is gone."""
    seen = []
    mark = b",tag=" + prefix.encode()
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"subscribe kinds=position\n")
        s.settimeout(0.1)
        rest = b""
        while True:
            try:
                data = s.recv(1 << 20)
            except socket.timeout:
                continue
            except OSError:
                break
            if not data:
                break
            now = time.time()
            *lines, rest = (rest + data).split(b"\n")
            for line in lines:
                i = line.find(mark)
                if i < 0 or not line.startswith(b"position"):
                    continue
                tag = line[i + 5:line.index(b" ", i)].decode()
                seen.append((tag, int(line[line.rfind(b" ") + 1:]), now))
    out.put(seen)


def stored(db, prefix):
    """Per tag of this round: (count, newest t_ns, largest gap between consecutive rows in s)."""
    con = sqlite3.connect(db, timeout=30)
    rows = con.execute("""SELECT t.tag, p.t_ns FROM positions p JOIN tags t ON t.id = p.tag_id
                          WHERE t.tag LIKE ? ORDER BY p.tag_id, p.t_ns""", (prefix + "T%",)).fetchall()
    last = dict(con.execute("""SELECT t.tag, l.t_ns FROM last_positions l JOIN tags t ON t.id = l.tag_id
                               WHERE t.tag LIKE ?""", (prefix + "T%",)).fetchall())
    con.close()
    per = {}
    keys = set(rows)
    for tag, t in rows:
        c, newest, gap = per.get(tag, (0, None, 0.0))
        per[tag] = (c + 1, t, gap if newest is None else max(gap, (t - newest) / 1e9))
    return per, last, keys


def snapshot(server, tags):
    """The last positions the restarted service sends a new dashboard: {tag: t_ns}."""
    got = {}
    for i in range(0, len(tags), 200):      # a subscription line is at most 4 KiB
        got.update(snapshot_part(server, tags[i:i + 200]))
    return got


def snapshot_part(server, tags):
    got = {}
    with socket.create_connection(("127.0.0.1", server.feed), timeout=2) as s:
        s.sendall(b"subscribe kinds=position tags=" + ",".join(tags).encode() + b"\n")
        data, deadline = b"", time.time() + 2
        try:
            while time.time() < deadline and len(got) < len(tags):
                chunk = s.recv(1 << 20)
                if not chunk:
                    break
                data += chunk
                *lines, data = data.split(b"\n")
                for line in lines:
                    if line.startswith(b"position"):
                        tag = line.split(b",tag=", 1)[1].split(b" ", 1)[0].decode()
                        got.setdefault(tag, int(line.rsplit(b" ", 1)[1]))
        except socket.timeout:
            pass
    return got


def run(work, quick):
    v = Verdicts()
    rounds = 3 if quick else 5
    say(f"kill: {rounds} x SIGKILL during full-rate ingest ({GATEWAYS} gateways), restart on the same data "
        f"directory; loss window checked: {WINDOW:.1f} s (historyMaxDelay {HISTORY_MAX_DELAY} s + 0.1 s commit)")
    base = simulate(work, 900, 20)
    data = os.path.join(work, "kill-data")
    db = os.path.join(data, "sextant.sqlite")
    log = os.path.join(work, "kill-serve.log")
    rng = random.Random(7)
    try:
        return rounds_of(v, rounds, base, data, db, log, rng)
    finally:
        if server_alive[0] is not None and server_alive[0].proc.poll() is None:
            server_alive[0].kill()


server_alive = [None]


def rounds_of(v, rounds, base, data, db, log, rng):
    previous = None
    for r in range(1, rounds + 1):
        server = server_alive[0] = Server(data, log).start()
        if previous:
            prefix, last = previous
            snap = snapshot(server, sorted(last))
            wrong = [t for t in last if snap.get(t) != last[t]]
            v.check(f"round {r - 1}: the restart serves the last stored positions", not wrong,
                    f"{len(last) - len(wrong)} of {len(last)} tags" + (f", e.g. {wrong[0]}: served "
                    f"{snap.get(wrong[0])} stored {last[wrong[0]]}" if wrong else ""))
        prefix = f"K{r}"
        bodies = [b.replace(b",tag=T", b",tag=" + prefix.encode() + b"T") for b, _ in base]
        stop, sent, found = threading.Event(), [0], mp.get_context("fork").Queue()
        watcher = mp.get_context("fork").Process(target=watch, args=(server.feed, prefix + "T", found))
        watcher.start()
        time.sleep(0.2)
        threads = [threading.Thread(target=blast, args=(server.ingest, bodies[g::GATEWAYS], stop, sent))
                   for g in range(GATEWAYS)]
        for t in threads:
            t.start()
        run_for = rng.uniform(3, 6)
        time.sleep(run_for - 1)
        s1, t1 = server.stats(), time.time()
        time.sleep(1)
        s2, t2 = server.stats(), time.time()
        kill_ns = time.time_ns()
        server.kill()
        stop.set()
        for t in threads:
            t.join()
        seen = found.get(timeout=60)
        watcher.join()
        rate = (s2["lines_in"] - s1["lines_in"]) / (t2 - t1)
        check = integrity(db)
        per, last, keys = stored(db, prefix)
        newest = max((n for _, n, _ in per.values()), default=0)
        gap = (kill_ns - newest) / 1e9
        lag = (kill_ns - max((t for _, t, _ in seen), default=0)) / 1e9
        # The history is committed in the order the service produced the positions, which is the
        # order a dashboard receives them: the stored ones must be a prefix of what the feed showed.
        last_i = max((i for i, (tag, t, _) in enumerate(seen) if (tag, t) in keys), default=-1)
        missing = sum(1 for tag, t, _ in seen[:last_i + 1] if (tag, t) not in keys)
        # The loss window: the age at the kill of the oldest position produced and not stored (0 when
        # every position seen was stored). Ages are from the dashboard's receive time, so they are
        # short by the feed's latency.
        lost = len(seen) - last_i - 1
        loss = kill_ns / 1e9 - seen[last_i + 1][2] if lost else 0.0
        mismatched = [t for t in per if last.get(t) != per[t][1]]
        say(f"  round {r}: killed after {run_for:.1f} s at {rate:,.0f} lines/s; {sum(c for c, _, _ in per.values()):,} "
            f"positions of {len(per)} tags stored; newest stored position time {gap * 1000:.0f} ms before the kill, "
              f"of which {lag * 1000:.0f} ms the service was behind the senders; {lost:,} positions produced and "
              f"not stored, the oldest {loss * 1000:.0f} ms before the kill; "
            f"largest time gap within a tag {max((g for _, _, g in per.values()), default=0):.2f} s; "
            f"history pending just before the kill {s2['history_pending']:,}")
        v.check(f"round {r}: integrity_check", check == "ok", check)
        v.check(f"round {r}: loss window", 0 <= loss <= WINDOW, f"{loss * 1000:.0f} ms <= {WINDOW * 1000:.0f} ms")
        v.check(f"round {r}: the stored positions are the first ones produced", last_i >= 0 and not missing,
                f"{missing} of the {last_i + 1:,} first positions on the feed missing")
        v.check(f"round {r}: last_positions = each tag's newest row", not mismatched,
                f"{len(per) - len(mismatched)} of {len(per)} tags")
        previous = (prefix, {t: n for t, (_, n, _) in per.items()})
    server = server_alive[0] = Server(data, log).start()
    prefix, last = previous
    snap = snapshot(server, sorted(last))
    wrong = [t for t in last if snap.get(t) != last[t]]
    v.check(f"round {rounds}: the restart serves the last stored positions", not wrong,
            f"{len(last) - len(wrong)} of {len(last)} tags")
    code = server.stop()
    v.check("final SIGTERM exit and integrity_check", code == 0 and integrity(db) == "ok", f"exit {code}")
    return v
