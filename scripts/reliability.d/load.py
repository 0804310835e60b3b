"""Load: 1,000 gateways and 100 dashboards (10 never reading) against a baseline of 8 gateways and
1 dashboard, at the same offered load, in one run. Compares the ingest rate and the feed latency."""
import multiprocessing as mp, os, selectors, socket, struct, time
from common import (Server, Verdicts, machine_probe, percentile, probe_summary, say, simulate, stamp_join)

RATE = 50_000          # offered ingest lines/s, both phases
TICK = 0.005           # the generator sends what is due every 5 ms
BASE_CONNS, LOAD_CONNS = 8, 1000
READERS, IDLE = 90, 10


def open_conns(port, n):
    conns = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setblocking(False)
        conns.append(s)
    return conns


def generator(port, lines, tag_index, t0, plan, out):
    """Sends `lines` at RATE from t0, each batch stamped with the wall clock just before its send.
    plan: [(first line index, connections)]: the gateway set changes at those indices. A tag always
    goes through the same gateway of a set. Reports per-window lines sent, lag and CPU."""
    sel = selectors.DefaultSelector()
    pending = {}
    phase, conns = 0, open_conns(port, plan[0][1])
    for s in conns:
        sel.register(s, selectors.EVENT_READ)
    sent, total, n = 0, len(lines), len(conns)
    bodies = [b for b, _ in lines]
    max_lag = [0.0] * len(plan)
    marks = []                      # (wall time, lines sent, cpu seconds)
    next_mark = time.time()
    while time.time() < t0:
        time.sleep(0.001)
    while sent < total:
        now = time.time()
        if now >= next_mark:
            marks.append((now, sent, time.process_time()))
            next_mark = now + 0.5
        due = min(total, int((now - t0) * RATE))
        if phase + 1 < len(plan) and sent >= plan[phase + 1][0]:
            for s in conns:
                sel.unregister(s); s.close()
            pending.clear()
            phase += 1
            conns = open_conns(port, plan[phase][1])
            for s in conns:
                sel.register(s, selectors.EVENT_READ)
            n = len(conns)
            continue
        if due <= sent:
            flush(sel, pending, 0.0005)
            time.sleep(max(0.0, min(TICK, (sent + 1) / RATE - (time.time() - t0))))
            continue
        max_lag[phase] = max(max_lag[phase], (due - sent) / RATE)
        end = min(due, sent + RATE // 10)
        if phase + 1 < len(plan):
            end = min(end, plan[phase + 1][0])
        # One write per line in both phases, as a gateway forwards each measurement when it arrives:
        # the phases then differ in the number of connections alone, not in how the lines are packed.
        for i in range(sent, end):
            s = conns[tag_index[i] % n]
            data = stamp_join((bodies[i],))
            if s in pending:
                pending[s] += data
                continue
            rest = send_some(s, data)
            if rest:
                pending[s] = rest
                sel.modify(s, selectors.EVENT_READ | selectors.EVENT_WRITE)
        sent = end
        flush(sel, pending, 0)
    marks.append((time.time(), sent, time.process_time()))
    out.put({"marks": marks, "max_lag": max_lag})
    time.sleep(1.0)
    for s in conns:
        s.close()


def send_some(s, data):
    """Sends what a nonblocking socket takes now; returns the bytes left (empty when all went)."""
    try:
        k = s.send(data)
    except BlockingIOError:
        k = 0
    return data[k:]


def flush(sel, pending, timeout):
    for key, ev in sel.select(timeout):
        s = key.fileobj
        if ev & selectors.EVENT_READ:
            try:
                s.recv(65536)      # replies to rejected lines, if any
            except BlockingIOError:
                pass
        if ev & selectors.EVENT_WRITE and s in pending:
            rest = send_some(s, pending.pop(s))
            if rest:
                pending[s] = rest
            else:
                sel.modify(s, selectors.EVENT_READ)


SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)    # Linux; Python does not name it


def kernel_time(ancillary):
    """The receive time (Unix ns) in a recvmsg's SCM_TIMESTAMPNS, or None."""
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
            seconds, nanoseconds = struct.unpack("qq", data[:16])
            return seconds * 1_000_000_000 + nanoseconds
    return None


def dashboards(port, tags, t0, switch_at, end_at, windows, out, same=False):
    """One reading dashboard until switch_at, then READERS reading (each a slice of the tags) and IDLE
    that subscribe to everything and never read. Latency = receive time - the position's timestamp.
    The receive time is the kernel's (SO_TIMESTAMPNS: when the segment reached the dashboard's socket),
    so that the dashboards' own wait for a CPU, 90 sockets in one Python process on the machine that
    also runs the server and the generator, is not counted as the service's latency. The time at
    which this process read the line is kept beside it ("as read")."""
    sel = selectors.DefaultSelector()
    bufs, counts = {}, {}
    lat = {name: [] for name, _, _ in windows}
    read_lat = {name: [] for name, _, _ in windows}

    def connect(request, reading):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(request)
        if reading:
            try:
                s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            except OSError:
                pass                # then the time it is read is all there is
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
            bufs[s] = b""
            counts[s] = 0
        return s

    base = connect(b"subscribe kinds=position\n", True)
    idle, switched = [], False
    while time.time() < end_at:
        if not switched and same and time.time() >= switch_at:
            switched = True         # the calibration: the second phase is the baseline again
        if not switched and time.time() >= switch_at:
            sel.unregister(base); base.close(); bufs.pop(base); counts.pop(base)
            per = (len(tags) + READERS - 1) // READERS
            for r in range(READERS):
                part = tags[r * per:(r + 1) * per] or tags[:1]
                connect(b"subscribe kinds=position tags=" + b",".join(part) + b"\n", True)
            idle = [connect(b"subscribe\n", False) for _ in range(IDLE)]
            switched = True
        for key, _ in sel.select(0.05):
            s = key.fileobj
            try:
                data, ancillary, _, _ = s.recvmsg(1 << 20, socket.CMSG_SPACE(16))
            except BlockingIOError:
                continue
            read_at = time.time_ns()
            now = kernel_time(ancillary) or read_at
            if not data:
                sel.unregister(s)
                continue
            window = next((name for name, a, b in windows if a <= now / 1e9 < b), None)
            lines = (bufs[s] + data).split(b"\n")
            bufs[s] = lines.pop()
            for line in lines:
                if not line.startswith(b"position"):
                    continue
                counts[s] += 1
                if window:
                    stamp = int(line[line.rfind(b" ") + 1:])
                    lat[window].append((now - stamp) / 1e6)
                    read_lat[window].append((read_at - stamp) / 1e6)
    starved = sum(1 for c in counts.values() if c == 0)
    with open("/proc/self/schedstat") as f:
        run, wait, _ = map(int, f.read().split())
    out.put({"run": run / 1e9, "wait": wait / 1e9, "lat": {k: sorted(v) for k, v in lat.items()},
            "read_lat": {k: sorted(v) for k, v in read_lat.items()}, "readers": len(counts), "starved": starved})
    for s in idle:
        s.close()


def run(work, quick, same=False):
    """same: the calibration run: the second phase is the baseline again (8 gateways, reconnected, and
    the same dashboard), so the differences it prints are the comparison's own noise on this machine."""
    v = Verdicts()
    base_s, load_s, warm = (10, 20, 4) if quick else (20, 45, 5)
    load_conns = BASE_CONNS if same else LOAD_CONNS
    if same:
        say(f"load --same (calibration): {BASE_CONNS} gateways + 1 dashboard for {base_s} s, then the same again "
            f"(the gateways reconnected) for {load_s} s; {RATE:,} lines/s offered throughout")
    else:
        say(f"load: baseline {BASE_CONNS} gateways + 1 dashboard for {base_s} s, then {LOAD_CONNS} gateways + "
            f"{READERS + IDLE} dashboards ({IDLE} never reading) for {load_s} s; {RATE:,} lines/s offered throughout")
    lines = simulate(work, 1250, base_s + load_s + 5)   # ~50,000 lines per simulated second
    tag_ids = {}
    tag_index = [tag_ids.setdefault(t, len(tag_ids)) for _, t in lines]
    tags = sorted(t for t in tag_ids if t)
    if len(lines) < RATE * (base_s + load_s):
        say(f"load: note: the simulation has {len(lines):,} lines, less than the plan; the last phase ends early")
    server = Server(os.path.join(work, "load-data"), os.path.join(work, "load-serve.log")).start()
    ctx = mp.get_context("fork")
    gen_q, feed_q, probe_q = ctx.Queue(), ctx.Queue(), ctx.Queue()
    t0 = time.time() + 2.0
    switch = t0 + base_s
    end = switch + load_s
    lines = lines[:int(RATE * (base_s + load_s))]
    windows = [("baseline", t0 + warm, switch), ("load", switch + warm, end)]
    gen = ctx.Process(target=generator, args=(server.ingest, lines, tag_index, t0,
                                              [(0, BASE_CONNS), (int(RATE * base_s), load_conns)], gen_q))
    feed = ctx.Process(target=dashboards, args=(server.feed, tags, t0, switch, end + 0.5, windows, feed_q, same))
    probe = ctx.Process(target=machine_probe, args=(end, probe_q))
    feed.start(); gen.start(); probe.start()
    samples = {}
    try:
        for name, a, b in windows:
            for edge, when in (("start", a), ("end", b)):
                time.sleep(max(0.0, when - time.time()))
                try:
                    samples[(name, edge)] = (time.time(), server.stats(), server.sched())
                except OSError as e:      # no answer to #stats: the loop is far behind
                    say(f"  {name} {edge}: no answer to #stats within 20 s ({e})")
        gres, fres, probed = gen_q.get(timeout=120), feed_q.get(timeout=120), probe_q.get(timeout=120)
        gen.join(); feed.join(); probe.join()
        try:
            final = server.stats()
        except OSError:
            final = {}
    finally:
        for p in (gen, feed, probe):
            if p.is_alive():
                p.terminate()
        code = server.stop()
    if len(samples) < 4:
        v.check("#stats answered during the run", False, f"{len(samples)} of 4 samples")
        return v
    held = samples[("load", "start")][1]
    say(f"  server {held.get('ingest_connections', '?')} gateways and {held.get('feed_clients', '?')} dashboards "
        f"connected at the start of the load window; exit after SIGTERM: {code}")
    figures = {}
    for name, a, b in windows:
        (ta, sa, ca), (tb, sb, cb) = samples[(name, "start")], samples[(name, "end")]
        dt = tb - ta
        marks = [m for m in gres["marks"] if a <= m[0] <= b]
        gen_rate = (marks[-1][1] - marks[0][1]) / (marks[-1][0] - marks[0][0]) if len(marks) > 1 else float("nan")
        gen_cpu = (marks[-1][2] - marks[0][2]) / (marks[-1][0] - marks[0][0]) if len(marks) > 1 else float("nan")
        lat = fres["lat"][name]
        f = {"ingest": (sb["lines_in"] - sa["lines_in"]) / dt,
             "positions": (sb["positions_out"] - sa["positions_out"]) / dt,
             "cpu": (cb[0] - ca[0]) / dt * 100, "wait": (cb[1] - ca[1]) / dt * 100, "gen_rate": gen_rate, "gen_cpu": gen_cpu * 100,
             "us_per_line": (cb[0] - ca[0]) / max(1, sb["lines_in"] - sa["lines_in"]) * 1e6,
             "n": len(lat), "p50": percentile(lat, 50), "p90": percentile(lat, 90),
             "p99": percentile(lat, 99), "max": lat[-1] if lat else float("nan")}
        figures[name] = f
        say(f"  {name:8s} {dt:5.1f} s: ingest {f['ingest']:9,.0f} lines/s, positions {f['positions']:7,.0f}/s, "
            f"server CPU {f['cpu']:3.0f} % = {f['us_per_line']:.1f} µs/line (its loop thread runnable but waiting for a CPU {f['wait']:3.0f} % of the time), generator {f['gen_rate']:9,.0f} lines/s at {f['gen_cpu']:3.0f} % CPU; "
            f"latency ms (n={f['n']:,}) p50 {f['p50']:.2f} p90 {f['p90']:.2f} p99 {f['p99']:.2f} max {f['max']:.1f}")
        read = fres["read_lat"][name]
        say(f"           latency as read by the dashboards' process: p50 {percentile(read, 50):.2f} "
            f"p90 {percentile(read, 90):.2f} p99 {percentile(read, 99):.2f} ms; {probe_summary(probed, a, b)}")
    b, l = figures["baseline"], figures["load"]
    say(f"  dashboards process (whole run, {end - t0 + 0.5:.0f} s): {fres['run']:.1f} s on a CPU, "
        f"{fres['wait']:.1f} s runnable but waiting for one")
    say(f"  generator lag (max, s): {', '.join(f'{x:.3f}' for x in gres['max_lag'])}; "
        f"feed lines dropped for the idle dashboards: {final.get('feed_lines_dropped', '?'):,}; "
        f"feed clients disconnected: {final.get('feed_clients_disconnected', '?')}")
    if l["gen_rate"] < 0.95 * RATE or b["gen_rate"] < 0.95 * RATE:
        say("  note: the generator did not keep up with the offered rate: the generator, not the server, is the limit")
    within = lambda x, y: abs(x - y) <= 0.2 * y
    if not same:
        v.check("held 1,000 gateways and 100 dashboards", held.get("ingest_connections") == LOAD_CONNS
                and held.get("feed_clients", 0) >= READERS + IDLE,
                f"{held.get('ingest_connections')} gateways, {held.get('feed_clients')} dashboards")
    v.check("every reading dashboard got positions", fres["starved"] == 0,
            f"{fres['readers'] - fres['starved']} of {fres['readers']}")
    v.check("ingest rate within 20 %", within(l["ingest"], b["ingest"]),
            f"{l['ingest']:,.0f} vs {b['ingest']:,.0f} lines/s ({(l['ingest'] / b['ingest'] - 1) * 100:+.1f} %)")
    v.check("server CPU per ingested line within 20 %", within(l["us_per_line"], b["us_per_line"]),
            f"{l['us_per_line']:.1f} vs {b['us_per_line']:.1f} µs/line")
    for q in ("p50", "p99"):
        v.check(f"feed latency {q} within 20 %", within(l[q], b[q]),
                f"{l[q]:.2f} vs {b[q]:.2f} ms ({(l[q] / b[q] - 1) * 100:+.0f} %)")
    return v
